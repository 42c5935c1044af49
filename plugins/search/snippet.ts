/**
 * A snippet of a text around the words a search matched, with where they
 * are: `offsets` are [start, end) pairs in UTF-16 code units of `text` (the
 * indices JavaScript's `slice` takes), so a client can highlight without
 * re-tokenising. Tokens are split as the index splits them (spaces and
 * punctuation), compared lowercased.
 */
const TOKEN = /[^\n\r\p{Z}\p{P}]+/gu;

export interface Snippet {
  readonly text: string;
  readonly offsets: Array<[number, number]>;
}

export function matchedSpans(text: string, terms: ReadonlySet<string>): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const match of text.matchAll(TOKEN)) {
    if (terms.has(match[0].toLowerCase())) spans.push([match.index!, match.index! + match[0].length]);
  }
  return spans;
}

/** About `width` characters of `text` around its first matched word (the start when none). */
export function snippet(text: string, terms: ReadonlySet<string>, width = 160): Snippet {
  const flat = text.replace(/\s+/g, ' ');
  const spans = matchedSpans(flat, terms);
  if (flat.length <= width) return { text: flat, offsets: spans };
  const first = spans[0]?.[0] ?? 0;
  let start = Math.max(0, first - Math.floor(width / 4));
  if (start > 0) {
    const space = flat.lastIndexOf(' ', start);
    start = space >= 0 && first - space <= width / 2 ? space + 1 : start;
  }
  let end = Math.min(flat.length, start + width);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start + width / 2) end = space;
  }
  const prefix = start > 0 ? '…' : '';
  const suffix = end < flat.length ? '…' : '';
  const shift = prefix.length - start;
  return {
    text: prefix + flat.slice(start, end) + suffix,
    offsets: spans.filter(([s, e]) => s >= start && e <= end).map(([s, e]) => [s + shift, e + shift] as [number, number]),
  };
}
