/**
 * Thread ids (spec §2.3): `th_` + 64 lowercase hex, derived from seeds, or a
 * reserved constant. Clients never invent ids; they use these helpers.
 * The seed is the canonical JSON of a tagged array, so every implementation
 * that follows docs/decisions.md derives the same id.
 */
import { canonicalJson } from './canonical-json.js';
import { isReservedThread } from './reserved-threads.js';
import { nobleSha256Hex, type Sha256Hex } from './sha256.js';

export const THREAD_ID_PATTERN = /^th_[0-9a-f]{64}$/;

export function isDerivedThreadId(value: unknown): value is string {
  return typeof value === 'string' && THREAD_ID_PATTERN.test(value);
}

/** A thread id a record may carry: derived form or reserved constant. */
export function isThreadId(value: unknown): value is string {
  return isDerivedThreadId(value) || isReservedThread(value);
}

/** Task thread: from alias and nonce, so an alias with one nonce always maps to one thread. */
export function taskThreadId(alias: string, nonce: string, sha256Hex: Sha256Hex = nobleSha256Hex): string {
  if (typeof alias !== 'string' || alias.length === 0) throw new TypeError('alias must be a non-empty string');
  if (typeof nonce !== 'string' || nonce.length === 0) throw new TypeError('nonce must be a non-empty string');
  return 'th_' + sha256Hex(canonicalJson(['task', alias, nonce]));
}

/** Dispatch thread: from parent thread, target actor and the dispatch timestamp (ISO 8601, UTC). */
export function dispatchThreadId(parentThread: string, targetActor: string, dispatchedAt: Date | string, sha256Hex: Sha256Hex = nobleSha256Hex): string {
  if (!isThreadId(parentThread)) throw new TypeError('parentThread must be a thread id');
  // A timestamp without an offset would be read in the machine's time zone, so two machines could derive different ids.
  if (typeof dispatchedAt === 'string' && !/(Z|[+-]\d{2}:?\d{2})$/i.test(dispatchedAt)) {
    throw new TypeError('dispatchedAt must carry a time zone offset (e.g. 2024-05-01T12:34:56Z)');
  }
  const at = typeof dispatchedAt === 'string' ? new Date(dispatchedAt) : dispatchedAt;
  if (Number.isNaN(at.getTime())) throw new TypeError('dispatchedAt must be a valid timestamp');
  return 'th_' + sha256Hex(canonicalJson(['dispatch', parentThread, targetActor, at.toISOString()]));
}

/**
 * A member actor's own thread for one facet of it (`memory`: its memories;
 * `trust`: trust imported for it): from the member's DID and the facet, so
 * every instance and client derives the same thread for the same member.
 */
export function memberThreadId(memberDid: string, facet: string, sha256Hex: Sha256Hex = nobleSha256Hex): string {
  if (typeof memberDid !== 'string' || memberDid.length === 0) throw new TypeError('memberDid must be a non-empty string');
  if (typeof facet !== 'string' || facet.length === 0) throw new TypeError('facet must be a non-empty string');
  return 'th_' + sha256Hex(canonicalJson(['member', memberDid, facet]));
}

/** A fresh random nonce (128 bits, hex) for task threads; works in Node and browsers. */
export function newThreadNonce(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
