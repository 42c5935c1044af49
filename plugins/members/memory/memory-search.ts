/**
 * `search` over one member's live memories. With the search plugin loaded,
 * through its find index (BM25 over the memory's name as title and its
 * description, type and domain as text), best first; memories the index
 * has not reached yet (sequence above what it covers) and memories with a
 * tag equal to a query word are added after, newest first, so a memory is
 * found the moment it is written and tags (arrays the index does not read)
 * count. Without the search plugin: every word of the query must appear,
 * ignoring case, in the name, the description or a tag; newest first.
 */
import type { MemoryEntry } from './memory-fold.js';

/** What the members plugin needs of the search plugin's find service. */
export interface MemoryRanker {
  rankRecords(q: string, admit: (recordId: string) => boolean, limit: number): { ranked: Array<{ recordId: string; score: number }>; indexedThrough: number };
}

const words = (q: string): string[] => q.toLowerCase().split(/\s+/).filter(Boolean);

/** Every word of the query in the name, description or a tag (case ignored). */
export function substringMatch(entry: MemoryEntry, queryWords: readonly string[]): boolean {
  const body = entry.body;
  const haystack = `${body.name}\n${body.description}\n${body.tags.join('\n')}`.toLowerCase();
  return queryWords.every((word) => haystack.includes(word));
}

function tagMatch(entry: MemoryEntry, queryWords: ReadonlySet<string>): boolean {
  return entry.body.tags.some((tag) => queryWords.has(tag.toLowerCase()));
}

/** Newest first. */
export const newestFirst = (a: MemoryEntry, b: MemoryEntry): number => b.sequence - a.sequence;

/** The `limit` best memories among `entries` for `q`, and whether more matched. */
export function searchMemories(entries: readonly MemoryEntry[], q: string, limit: number, ranker: MemoryRanker | null): { found: MemoryEntry[]; more: boolean } {
  const queryWords = words(q);
  if (ranker === null) {
    const found = entries.filter((entry) => substringMatch(entry, queryWords)).sort(newestFirst);
    return { found: found.slice(0, limit), more: found.length > limit };
  }
  const byRecord = new Map(entries.map((entry) => [entry.record, entry]));
  // One more than asked, to tell whether more matched.
  const { ranked, indexedThrough } = ranker.rankRecords(q, (id) => byRecord.has(id), limit + 1);
  const found = ranked.map((hit) => byRecord.get(hit.recordId)!);
  const taken = new Set(found);
  const wordSet = new Set(queryWords);
  const rest = entries.filter((entry) => !taken.has(entry) && ((entry.sequence > indexedThrough && substringMatch(entry, queryWords)) || tagMatch(entry, wordSet))).sort(newestFirst);
  const all = [...found, ...rest];
  return { found: all.slice(0, limit), more: all.length > limit };
}
