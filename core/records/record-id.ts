/**
 * id = SHA-256(canonical_json({act, actor, body, clock, data_type, parents, thread})),
 * 64 lowercase hex, no prefix (spec §2.1).
 */
import { canonicalForm, canonicalJson } from './canonical-json.js';
import type { JsonObject } from './json.js';
import type { RecordFields } from './record.js';
import { nobleSha256Hex, type Sha256Hex } from './sha256.js';

export const RECORD_ID_PATTERN = /^[0-9a-f]{64}$/;

export function isRecordId(value: unknown): value is string {
  return typeof value === 'string' && RECORD_ID_PATTERN.test(value);
}

/** The seven hashed fields alone (no judged_by, no id), in canonical order. */
function hashedFields(record: Omit<RecordFields, 'judged_by'>): Omit<RecordFields, 'judged_by'> {
  return {
    act: record.act,
    actor: record.actor,
    body: record.body,
    clock: record.clock,
    data_type: record.data_type,
    parents: record.parents,
    thread: record.thread,
  };
}

/** The canonical bytes (as a string) that the id hashes: also the federation wire form of the hashed part. */
export function hashedCanonicalJson(record: Omit<RecordFields, 'judged_by'>): string {
  return canonicalJson(hashedFields(record));
}

/** The hashed fields' canonical text, with the body and parents as frozen canonical copies. */
export interface CanonicalRecordContent {
  readonly text: string;
  readonly body: JsonObject;
  readonly parents: string[];
}

/**
 * `hashedCanonicalJson` plus the frozen, canonically ordered copies of the
 * body and parents it checked on the way (one walk instead of a second one
 * to freeze them). Throws CanonicalJsonError as `canonicalJson` does.
 */
export function canonicalRecordContent(record: Omit<RecordFields, 'judged_by'>): CanonicalRecordContent {
  const { value, text } = canonicalForm(hashedFields(record));
  const hashed = value as unknown as Pick<RecordFields, 'body' | 'parents'>;
  return { text, body: hashed.body, parents: hashed.parents };
}

export function computeRecordId(record: Omit<RecordFields, 'judged_by'>, sha256Hex: Sha256Hex = nobleSha256Hex): string {
  return sha256Hex(hashedCanonicalJson(record));
}
