/**
 * The four hash levels as projections of a record (spec §2.8; docs/decisions.md
 * "Federation"). L0 is the record itself. L1–L3 are new, well-formed records
 * (their own id, recomputable by any receiver) whose body says what they are
 * (`redacted`, `hash_level`, `source_id`) and keeps less at each level:
 * - L1 structural: every envelope field; the body's values are gone, its
 *   shape (top-level keys and JSON types) and `namespace`, `kind`, `topic` stay.
 * - L2 flow: thread, act, clock, data_type, parents (the causal flow); the
 *   actor becomes a stable pseudonym; body keeps `namespace` and `kind`.
 * - L3 intent: thread, act, data_type, clock; pseudonymous actor; no parents;
 *   body keeps `namespace` and `kind`.
 * Clock and thread stay at every level, so two records of one actor never
 * collide on a clock slot at the receiver.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { computeRecordId } from '../../../core/records/record-id.js';
import { makeRecord, type LoomRecord, type RecordFields } from '../../../core/records/record.js';
import type { JsonObject, JsonValue } from '../../../core/records/json.js';

export type HashLevel = 'L0' | 'L1' | 'L2' | 'L3';
/** Strongest (most content) first. */
export const HASH_LEVELS: readonly HashLevel[] = ['L0', 'L1', 'L2', 'L3'];

export function isHashLevel(value: unknown): value is HashLevel {
  return typeof value === 'string' && (HASH_LEVELS as readonly string[]).includes(value);
}

/** Whether a grant of `granted` lets a record cross at `wanted` (L0 ⇒ L1 ⇒ L2 ⇒ L3). */
export function levelAllows(granted: HashLevel, wanted: HashLevel): boolean {
  return HASH_LEVELS.indexOf(granted) <= HASH_LEVELS.indexOf(wanted);
}

function jsonType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A stable pseudonym of an actor, salted with the serving instance's DID. */
export function pseudonymOf(actor: string, salt: string): string {
  return `did:sync:agent:anon-${bytesToHex(sha256(utf8ToBytes(`${salt}\n${actor}`))).slice(0, 16)}`;
}

export function projectRecord(record: LoomRecord, level: HashLevel, pseudonymSalt: string): LoomRecord {
  if (level === 'L0') return record;
  const body = record.body;
  const kept: JsonObject = { redacted: true, hash_level: level, source_id: record.id };
  if (typeof body['namespace'] === 'string') kept['namespace'] = body['namespace'];
  if (typeof body['kind'] === 'string') kept['kind'] = body['kind'];
  let fields: RecordFields;
  if (level === 'L1') {
    if (typeof body['topic'] === 'string') kept['topic'] = body['topic'];
    kept['shape'] = Object.fromEntries(Object.entries(body).map(([key, value]) => [key, jsonType(value as JsonValue)]));
    fields = { parents: record.parents, thread: record.thread, actor: record.actor, act: record.act, body: kept, clock: record.clock, data_type: record.data_type, judged_by: record.judged_by };
  } else {
    fields = {
      parents: level === 'L2' ? record.parents : [],
      thread: record.thread,
      actor: pseudonymOf(record.actor, pseudonymSalt),
      act: record.act,
      body: kept,
      clock: record.clock,
      data_type: record.data_type,
      judged_by: null,
    };
  }
  return makeRecord(computeRecordId(fields), fields);
}
