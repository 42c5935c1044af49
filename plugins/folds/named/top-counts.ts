/**
 * The N keys with the highest counts, kept exactly while counts only grow
 * by one at a time (records counted as they arrive): a key outside the list
 * never counts more than the list's smallest, so a key that just grew needs
 * comparing with that smallest only. O(N) per increment, N small (10).
 * Ties keep the key that reached the count first.
 */
export interface TopCount {
  key: string;
  count: number;
}

export interface TopCounts {
  readonly size: number;
  /** Highest first. */
  entries: TopCount[];
}

export function newTopCounts(size: number): TopCounts {
  return { size, entries: [] };
}

/** Notes that `key` now counts `count` (its previous count + 1). */
export function noteCount(top: TopCounts, key: string, count: number): void {
  const entries = top.entries;
  let at = entries.findIndex((entry) => entry.key === key);
  if (at >= 0) {
    entries[at]!.count = count;
  } else if (entries.length < top.size) {
    at = entries.push({ key, count }) - 1;
  } else if (count > entries[entries.length - 1]!.count) {
    at = entries.length - 1;
    entries[at] = { key, count };
  } else {
    return;
  }
  while (at > 0 && entries[at - 1]!.count < count) {
    [entries[at - 1], entries[at]] = [entries[at]!, entries[at - 1]!];
    at -= 1;
  }
}
