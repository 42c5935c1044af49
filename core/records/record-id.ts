/**
 * id = SHA-256(canonical_json({act, actor, body, clock, data_type, parents, thread})),
 * 64 lowercase hex, no prefix (spec §2.1).
 */
import { canonicalJson } from './canonical-json.js';
import type { RecordFields } from './record.js';
import { nobleSha256Hex, type Sha256Hex } from './sha256.js';

export const RECORD_ID_PATTERN = /^[0-9a-f]{64}$/;

export function isRecordId(value: unknown): value is string {
  return typeof value === 'string' && RECORD_ID_PATTERN.test(value);
}

/** The canonical bytes (as a string) that the id hashes: also the federation wire form of the hashed part. */
export function hashedCanonicalJson(record: Omit<RecordFields, 'judged_by'>): string {
  return canonicalJson({
    act: record.act,
    actor: record.actor,
    body: record.body,
    clock: record.clock,
    data_type: record.data_type,
    parents: record.parents,
    thread: record.thread,
  });
}

export function computeRecordId(record: Omit<RecordFields, 'judged_by'>, sha256Hex: Sha256Hex = nobleSha256Hex): string {
  return sha256Hex(hashedCanonicalJson(record));
}
