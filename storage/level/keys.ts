/**
 * Key layout of the LevelDB driver. Every key is a UTF-8 string, so LevelDB's
 * byte order is code-point order (the order `compareStrings` and SQLite's
 * BINARY collation use). Numbers are fixed-width lowercase hex, so
 * lexicographic order is numeric order.
 *
 * Sublevel   key                                   value
 * rec        seq                                   JSON of the record row (record-codec.ts)
 * id         id                                    seq (decimal)
 * thread     thread ∅ seq                          '' (the sequence is in the key)
 * actor      actor ∅ seq                           ''
 * slot       actor ∅ thread ∅ clock                seq (decimal): the uniqueness slot
 * meta       thread                                JSON {recordCount, firstSequence, lastSequence}
 *
 * ∅ is U+0000. Variable-length parts are escaped so they never contain it,
 * which keeps (a, b) pairs unambiguous and every prefix range exact.
 */

/** Sublevel names; each becomes the key prefix `!name!`. */
export const SUBLEVELS = {
  records: 'rec',
  ids: 'id',
  threads: 'thread',
  actors: 'actor',
  slots: 'slot',
  meta: 'meta',
} as const;

/** 16 hex digits hold every integer up to 2^64-1, so any safe integer (≤ 2^53-1). */
const NUMBER_WIDTH = 16;
const SEPARATOR = '\u0000';
/** Sorts right after SEPARATOR: the exclusive upper bound of a `part ∅ …` range. */
const SEPARATOR_END = '\u0001';

/** A non-negative safe integer as 16 lowercase hex digits. */
export function encodeNumber(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`expected a non-negative safe integer, got ${n}`);
  return n.toString(16).padStart(NUMBER_WIDTH, '0');
}

export function decodeNumber(text: string): number {
  return parseInt(text, 16);
}

/**
 * A read cursor as a key: cursors are unbounded integers, but no stored
 * sequence exceeds 2^53-1, so clamping keeps "greater than" exact.
 */
export function encodeCursor(after: number): string {
  return encodeNumber(Math.min(Math.max(after, 0), Number.MAX_SAFE_INTEGER));
}

/**
 * Order-preserving escape: U+0001 → U+0001 U+0002 and U+0000 → U+0001 U+0001,
 * so an escaped part never contains U+0000. Valid threads and DIDs are plain
 * ASCII and pass through untouched.
 */
export function escapePart(part: string): string {
  if (!part.includes(SEPARATOR) && !part.includes(SEPARATOR_END)) return part;
  return part.replace(/\u0001/g, '\u0001\u0002').replace(/\u0000/g, '\u0001\u0001');
}

export function sequenceKey(sequence: number): string {
  return encodeNumber(sequence);
}

export function sequenceOfKey(key: string): number {
  return decodeNumber(key);
}

/** Key of a (thread, seq) or (actor, seq) index entry. */
export function partSequenceKey(part: string, sequence: number): string {
  return escapePart(part) + SEPARATOR + encodeNumber(sequence);
}

/** The sequence stored in a (part, seq) index key: its last 16 characters. */
export function sequenceOfPartKey(key: string): number {
  return decodeNumber(key.slice(-NUMBER_WIDTH));
}

/** Iterator range over one part's (part, seq) entries with seq > after. */
export function partRange(part: string, after = 0): { gt: string; lt: string } {
  const prefix = escapePart(part);
  return { gt: prefix + SEPARATOR + encodeCursor(after), lt: prefix + SEPARATOR_END };
}

/** Key of the (actor, thread, clock) uniqueness slot. */
export function slotKey(record: { readonly actor: string; readonly thread: string; readonly clock: number }): string {
  return pairPrefix(record) + SEPARATOR + encodeNumber(record.clock);
}

/** The (actor, thread) part of a slot key, equal for records of the same pair. */
export function pairPrefix(record: { readonly actor: string; readonly thread: string }): string {
  return escapePart(record.actor) + SEPARATOR + escapePart(record.thread);
}

/** `pairPrefix` of the record a slot key belongs to. */
export function pairPrefixOfSlotKey(slot: string): string {
  return slot.slice(0, -(NUMBER_WIDTH + SEPARATOR.length));
}
