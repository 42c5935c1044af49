/**
 * A page of the changes feed, as JSON (`feed=normal|longpoll`) and as each
 * event of `feed=continuous`. The serving instance signs the page once, not
 * each record, so one Ed25519 signature authenticates a whole page at the
 * cost of one: that is what lets a fresh target catch up faster than the
 * source ingests.
 *
 * What is signed (`sync_page.v2`) is everything a receiver acts on:
 * - every entry's record whole, as served (all eight fields and its id),
 *   with its hash level and commit time. An id authenticates only the seven
 *   hashed fields; `judged_by` is outside it by design and trust is scored
 *   from it, so signing ids alone let a proxy rewrite judgments in transit.
 *   A record with a member added, changed or removed no longer verifies.
 * - the request the page answers (`since`, `target_namespace`, `thread`), so
 *   a genuine page cannot be replayed later or served in place of another
 *   one: the receiver checks the binding against what it asked for, and a
 *   page that does not continue from its own cursor moves nothing.
 */
import { canonicalJson } from '../../core/records/canonical-json.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { HashLevel } from './consent/hash-levels.js';
import { verifyEd25519Fast } from './ed25519.js';
import { publicKeyFromDidKey } from './did-key.js';

/** The signed object's name: v1 signed only ids, so a v1 page can never verify as v2. */
export const SYNC_PAGE_OBJECT = 'sync_page.v2';

export interface SyncEntry {
  /** The id of `record` as served (a projection has its own id; `record.body.source_id` names the original). */
  readonly id: string;
  readonly record: LoomRecord;
  /** The consent level it was served at (L0: the record itself). */
  readonly hash_level: HashLevel;
  /** When the serving instance committed the original (ISO 8601, ms); the receiver measures delivery latency from it. */
  readonly committed_at: string;
}

/** The request a page answers, as the serving instance understood it. */
export interface PageRequest {
  /**
   * The cursor the page continues from, exactly as the reader holds it
   * (`''`: the start of the log). In a continuous feed, the previous event's
   * `next_cursor`. `null` on pages that are not part of a feed (fetch by id).
   */
  readonly since: string | null;
  readonly target_namespace: string;
  /** The thread filter, or null for every thread. */
  readonly thread: string | null;
}

export interface UnsignedSyncPage {
  readonly request: PageRequest;
  readonly records: SyncEntry[];
  /** Opaque; pass it back as `since`. Moves past withheld records too. */
  readonly next_cursor: string;
  readonly has_more: boolean;
}

export interface SyncPage extends UnsignedSyncPage {
  /** The serving instance's did:key. */
  readonly signer: string;
  /** Ed25519 (base64) over `pageSigningInput`. */
  readonly signature: string;
}

/**
 * The signed bytes: canonical JSON of the signer, the request binding, the
 * cursor, and each entry's id, level, commit time and whole record, in order.
 * Throws CanonicalJsonError for a record that is not I-JSON (only a forged
 * page can hold one).
 */
export function pageSigningInput(page: UnsignedSyncPage, signer: string): Uint8Array {
  return Buffer.from(
    canonicalJson({
      object: SYNC_PAGE_OBJECT,
      signer,
      request: { since: page.request.since, target_namespace: page.request.target_namespace, thread: page.request.thread },
      next_cursor: page.next_cursor,
      has_more: page.has_more,
      entries: page.records.map((entry) => [entry.id, entry.hash_level, entry.committed_at, entry.record]),
    }),
    'utf8',
  );
}

export interface PageSigner {
  readonly did: string;
  sign(message: Uint8Array): Uint8Array;
}

export function signPage(signer: PageSigner, page: UnsignedSyncPage): SyncPage {
  const signature = Buffer.from(signer.sign(pageSigningInput(page, signer.did))).toString('base64');
  return { ...page, signer: signer.did, signature };
}

/**
 * Why a page cannot be trusted, or null when its signature verifies against
 * one of `keys` (the peer's keys in force, keys/peer-keys.ts; default: the
 * signer DID's own key). `signer` is the peer's DID whichever key signed.
 */
export function pageProblem(page: SyncPage, expectedSigner: string, keys: readonly string[] = [expectedSigner]): string | null {
  if (page.signer !== expectedSigner) return `page signed by ${String(page.signer)}, not by the peer ${expectedSigner}`;
  if (!publicKeyFromDidKey(expectedSigner)) return `peer DID ${expectedSigner} is not an Ed25519 did:key`;
  if (typeof page.signature !== 'string' || !/^[A-Za-z0-9+/]{86}==$/.test(page.signature)) return 'page signature is missing or malformed';
  if (typeof page.request !== 'object' || page.request === null) return `the page names no request it answers (a ${SYNC_PAGE_OBJECT} page does; the peer may run an older federation protocol)`;
  let message: Uint8Array;
  try {
    message = pageSigningInput(page, page.signer);
  } catch {
    return 'the page holds a value that is not I-JSON, so it cannot be what the peer signed';
  }
  const signature = Buffer.from(page.signature, 'base64');
  for (const key of keys) {
    const publicKey = publicKeyFromDidKey(key);
    if (publicKey && verifyEd25519Fast(publicKey, message, signature)) return null;
  }
  return 'page signature does not verify against the peer DID (no key of it in force)';
}
