/**
 * Builders for valid PreparedRecords, so suites state only what a test is
 * about (thread, actor, clock, body) and get a real content-addressed record.
 * Every record is checked with the ingest validator: a fixture that would be
 * refused at ingest is a bug in the test, not something a driver must store.
 */
import type { Act } from '../../core/records/acts.js';
import type { DataType } from '../../core/records/data-types.js';
import type { JsonObject } from '../../core/records/json.js';
import { canonicalRecord } from '../../core/records/content-text.js';
import { makeRecord } from '../../core/records/record.js';
import { nobleSha256Hex } from '../../core/records/sha256.js';
import { validateRecordInput } from '../../core/records/validate-record.js';
import { namespaceOf, type PreparedRecord } from '../contract/stored-record.js';

export interface PreparedInput {
  /** A thread id (`th_` + 64 hex or reserved); see `threadId(name)`. @default threadId('default') */
  readonly thread?: string;
  /** A DID; see `actorDid(name)`. @default actorDid('alice') */
  readonly actor?: string;
  readonly clock: number;
  /** @default {} */
  readonly body?: JsonObject;
  /** @default 'KNOW' */
  readonly act?: Act;
  /** @default 'SCALAR' */
  readonly data_type?: DataType;
  /** @default [] */
  readonly parents?: string[];
  /** @default null */
  readonly judged_by?: string | null;
  /** Receipt time, Unix milliseconds. @default Date.now() */
  readonly createdAt?: number;
}

/** A derived-form thread id, stable for a given name. */
export function threadId(name: string): string {
  return 'th_' + nobleSha256Hex(`loom-compliance:${name}`);
}

/** A `did:sync:agent:<name>` actor; `name` uses DID idchars only. */
export function actorDid(name: string): string {
  return `did:sync:agent:${name}`;
}

export function makePrepared(input: PreparedInput): PreparedRecord {
  const checked = validateRecordInput({
    parents: input.parents ?? [],
    thread: input.thread ?? threadId('default'),
    actor: input.actor ?? actorDid('alice'),
    act: input.act ?? 'KNOW',
    body: input.body ?? {},
    clock: input.clock,
    data_type: input.data_type ?? 'SCALAR',
    judged_by: input.judged_by ?? null,
  });
  if (!checked.ok) throw new TypeError(`invalid fixture record: ${checked.message}`);
  // As ingest makes it (body and parents in canonical order): a store only ever receives such records.
  const { record, content } = canonicalRecord(checked.fields);
  return { record, namespace: namespaceOf(record), createdAt: input.createdAt ?? Date.now(), content };
}

/** The same record received again, e.g. later or with another judged_by (which is not hashed). */
export function resend(prepared: PreparedRecord, changes: { createdAt?: number; judged_by?: string | null } = {}): PreparedRecord {
  const { id, ...fields } = prepared.record;
  const record = makeRecord(id, { ...fields, judged_by: changes.judged_by === undefined ? fields.judged_by : changes.judged_by });
  return { record, namespace: prepared.namespace, createdAt: changes.createdAt ?? prepared.createdAt };
}

/** A small deterministic PRNG (mulberry32), so randomised suites reproduce from their seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
