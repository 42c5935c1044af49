/**
 * Value ordering shared by filters and sorts. Strings order by code point,
 * which equals UTF-8 byte order and so SQLite's BINARY collation.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (0xD800-0xDFFF) encodes a code point above 0xFFFF, which sorts
    // after every BMP character, although its UTF-16 unit is below 0xE000.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Sort key of a body member, mirroring how SQLite orders `json_extract` results:
 * missing and JSON null first, then numbers (booleans as 0 and 1), then text
 * (objects and arrays as their JSON text).
 */
export type SortKey = { readonly rank: 0 } | { readonly rank: 1; readonly value: number } | { readonly rank: 2; readonly value: string };

export function sortKeyOf(value: unknown): SortKey {
  if (value === undefined || value === null) return { rank: 0 };
  if (typeof value === 'number') return { rank: 1, value };
  if (typeof value === 'boolean') return { rank: 1, value: value ? 1 : 0 };
  if (typeof value === 'string') return { rank: 2, value };
  return { rank: 2, value: JSON.stringify(value) };
}

export function compareSortKeys(a: SortKey, b: SortKey): number {
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.rank === 0) return 0;
  if (a.rank === 1) return a.value - (b as { value: number }).value;
  return compareStrings(a.value, (b as { value: string }).value);
}
