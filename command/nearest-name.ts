/**
 * The known name nearest to a mistyped one (`loom thraed` → `thread`), or
 * null when none is close: edit distance at most a third of the name (at
 * least 1, at most 3; none for names of one or two letters), or the one known
 * name that starts with what was typed (two letters or more).
 */
export function nearestName(typed: string, known: readonly string[]): string | null {
  const limit = typed.length <= 2 ? 0 : Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name);
    if (distance <= limit && (best === null || distance < best.distance)) best = { name, distance };
  }
  if (best) return best.name;
  const prefixed = typed.length >= 2 ? known.filter((name) => name.startsWith(typed.toLowerCase())) : [];
  return prefixed.length === 1 ? prefixed[0]! : null;
}

/** Levenshtein distance, with an adjacent swap counting as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
