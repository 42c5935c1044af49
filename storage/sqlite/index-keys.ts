/**
 * The small integer keys the SQLite indexes are built on. Record ids, thread
 * ids and DIDs are 60-70 character strings, and every index entry carrying
 * one costs a B-tree page write per row at each commit; an 8-byte key makes
 * each index 4-8 times smaller, so a batch dirties that many fewer pages.
 * Keys may collide: every lookup also compares the full text column, so a
 * collision costs a row read, never a wrong answer.
 *
 * - id: its first 13 hex digits (52 bits; the id is SHA-256, uniformly spread).
 * - thread, actor: the first 6 bytes of SHA-256 of the UTF-8 text (48 bits),
 *   so a client cannot cheaply make its thread share a key with another's.
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export function idKey(id: string): number {
  const key = Number.parseInt(id.slice(0, 13), 16);
  // Ids are validated 64-hex strings; anything else (a lookup of garbage) gets a key no id has.
  return Number.isNaN(key) ? -1 : key;
}

/** Least recently used out (not a Map dropping its first key, which V8 makes cost a walk over every deleted entry once full). */
const cache = new LRUCache<string, number>({ max: 50_000 });

/** Key of a thread id or actor DID; recent ones are cached, as a batch repeats them. */
export function textKey(text: string): number {
  let key = cache.get(text);
  if (key === undefined) {
    key = createHash('sha256').update(text, 'utf8').digest().readUIntBE(0, 6);
    cache.set(text, key);
  }
  return key;
}
