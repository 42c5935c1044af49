/**
 * A page of the changes feed, as JSON (`feed=normal|longpoll`) and as each
 * event of `feed=continuous`. The serving instance signs the page once,
 * not each record: the signature covers every entry's id, and an id is the
 * SHA-256 of the record's content, which the receiver recomputes; so one
 * Ed25519 signature authenticates the whole page at the cost of one, which is
 * what lets a fresh target catch up faster than the source ingests.
 */
import { canonicalJson } from '../../core/records/canonical-json.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { HashLevel } from './consent/hash-levels.js';
import { verifyEd25519Fast } from './ed25519.js';
import { publicKeyFromDidKey } from './did-key.js';

export interface SyncEntry {
  /** The id of `record` as served (a projection has its own id; `record.body.source_id` names the original). */
  readonly id: string;
  readonly record: LoomRecord;
  /** The consent level it was served at (L0: the record itself). */
  readonly hash_level: HashLevel;
  /** When the serving instance committed the original (ISO 8601, ms); the receiver measures delivery latency from it. */
  readonly committed_at: string;
}

export interface UnsignedSyncPage {
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

/** What the page signature covers: the signer, the cursor, and each entry's id, level and commit time, in order. */
export function pageSigningInput(page: UnsignedSyncPage, signer: string): Uint8Array {
  return Buffer.from(
    canonicalJson({
      object: 'sync_page',
      signer,
      next_cursor: page.next_cursor,
      has_more: page.has_more,
      entries: page.records.map((entry) => [entry.id, entry.hash_level, entry.committed_at]),
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

/** Why a page cannot be trusted, or null when its signature verifies against `expectedSigner`. */
export function pageProblem(page: SyncPage, expectedSigner: string): string | null {
  if (page.signer !== expectedSigner) return `page signed by ${String(page.signer)}, not by the peer ${expectedSigner}`;
  const publicKey = publicKeyFromDidKey(expectedSigner);
  if (!publicKey) return `peer DID ${expectedSigner} is not an Ed25519 did:key`;
  if (typeof page.signature !== 'string' || !/^[A-Za-z0-9+/]{86}==$/.test(page.signature)) return 'page signature is missing or malformed';
  const ok = verifyEd25519Fast(publicKey, pageSigningInput(page, page.signer), Buffer.from(page.signature, 'base64'));
  return ok ? null : 'page signature does not verify against the peer DID';
}
