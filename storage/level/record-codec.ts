/**
 * The JSON value of a primary (`rec`) entry and of a thread-meta entry. The
 * sequence is not stored in the row: it is the row's key.
 */
import { makeRecord, type RecordFields } from '../../core/records/record.js';
import type { ThreadSummary } from '../contract/record-store.js';
import type { PreparedRecord, StoredRecord } from '../contract/stored-record.js';

/** The stored JSON value: the record's fields plus receipt metadata. */
interface RecordRow extends RecordFields {
  id: string;
  /** Receipt time, Unix milliseconds. */
  created_at: number;
  namespace: string;
}

export function encodeRecordRow(prepared: PreparedRecord): string {
  const r = prepared.record;
  const row: RecordRow = {
    id: r.id,
    parents: r.parents,
    thread: r.thread,
    actor: r.actor,
    act: r.act,
    body: r.body,
    clock: r.clock,
    data_type: r.data_type,
    judged_by: r.judged_by,
    created_at: prepared.createdAt,
    namespace: prepared.namespace,
  };
  return JSON.stringify(row);
}

export function decodeRecordRow(sequence: number, json: string): StoredRecord {
  const row = JSON.parse(json) as RecordRow;
  const record = makeRecord(row.id, {
    parents: row.parents,
    thread: row.thread,
    actor: row.actor,
    act: row.act,
    body: row.body,
    clock: row.clock,
    data_type: row.data_type,
    judged_by: row.judged_by,
  });
  return { sequence, createdAt: row.created_at, record };
}

const RECEIPT_SUFFIX = ',"created_at":';

/**
 * The record's wire JSON cut from the stored row: the row is the record's
 * fields in makeRecord's order followed by `created_at` and `namespace`, so
 * the text before the last `,"created_at":` (the row's own key: a quote
 * inside a string or a nested key comes earlier) plus `}` is exactly
 * `JSON.stringify(record)`. A row of another shape is decoded and serialised.
 */
export function recordJsonOfRow(sequence: number, json: string): string {
  const cut = json.lastIndexOf(RECEIPT_SUFFIX);
  if (cut > 0 && json.startsWith('{"id":"')) return `${json.slice(0, cut)}}`;
  return JSON.stringify(decodeRecordRow(sequence, json).record);
}

/** Per-thread summary, kept current in the same batch as the records. */
export type ThreadMeta = Omit<ThreadSummary, 'thread'>;

export function encodeThreadMeta(meta: ThreadMeta): string {
  return JSON.stringify({ recordCount: meta.recordCount, firstSequence: meta.firstSequence, lastSequence: meta.lastSequence });
}

export function decodeThreadMeta(thread: string, json: string): ThreadSummary {
  const meta = JSON.parse(json) as ThreadMeta;
  return { thread, recordCount: meta.recordCount, firstSequence: meta.firstSequence, lastSequence: meta.lastSequence };
}
