/**
 * A record's canonical content text: the seven hashed fields' canonical JSON
 * (record-id.ts), the bytes its id hashes.
 *
 * Ingest computes this text to hash the record, and hands it on with the
 * record (PreparedRecord.content, then AcceptedRecord.content) until the
 * driver has stored it: the journal frame and the SQLite row embed it
 * instead of serialising the body and parents again (issue "The per-record
 * cost": one canonical serialisation per record). It travels beside the
 * record rather than in a side table keyed by it: a WeakMap over every
 * record made each garbage collection walk its entries (measured: GC time
 * doubled in the ledger's ingest).
 */
import { canonicalRecordContent, hashedCanonicalJson } from './record-id.js';
import { makeRecordOfFrozen, type LoomRecord, type RecordFields } from './record.js';
import { nobleSha256Hex, type Sha256Hex } from './sha256.js';

/** A record and its canonical content text. */
export interface CanonicalRecord {
  readonly record: LoomRecord;
  readonly content: string;
}

/**
 * The stored form of valid fields, exactly as ingest makes it: the body and
 * parents as frozen canonical copies (one walk checks, orders and copies
 * them), the id hashed from their canonical text, and that text. Anything
 * that must hand a store what ingest would (fixtures, tests) makes records
 * here. Throws CanonicalJsonError as `canonicalJson` does.
 */
export function canonicalRecord(fields: RecordFields, sha256Hex: Sha256Hex = nobleSha256Hex): CanonicalRecord {
  const content = canonicalRecordContent(fields);
  // The stored record keeps the checked canonical copies: the caller's objects are neither frozen nor shared.
  const record = makeRecordOfFrozen(sha256Hex(content.text), { ...fields, body: content.body, parents: content.parents });
  return { record, content: content.text };
}

/** The content text carried with a record, or computed from it when none was (a record read back, or made elsewhere). */
export function contentText(carrier: { readonly record: LoomRecord; readonly content?: string | undefined }): string {
  return carrier.content ?? hashedCanonicalJson(carrier.record);
}
