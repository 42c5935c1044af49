/** The `records` row and its mapping to StoredRecord (parents and body are kept as their JSON text). */
import type { Act } from '../../core/records/acts.js';
import type { DataType } from '../../core/records/data-types.js';
import type { JsonObject } from '../../core/records/json.js';
import { makeRecord } from '../../core/records/record.js';
import type { StoredRecord } from '../contract/stored-record.js';

export interface RecordRow {
  readonly seq: number;
  readonly id: string;
  readonly thread: string;
  readonly actor: string;
  readonly act: string;
  readonly clock: number;
  readonly data_type: string;
  readonly judged_by: string | null;
  readonly created_at: number;
  readonly parents: string;
  readonly body: string;
}

export const RECORD_COLUMNS = 'seq, id, thread, actor, act, clock, data_type, judged_by, created_at, parents, body';

export function rowToStored(row: RecordRow): StoredRecord {
  const record = makeRecord(row.id, {
    parents: JSON.parse(row.parents) as string[],
    thread: row.thread,
    actor: row.actor,
    act: row.act as Act,
    body: JSON.parse(row.body) as JsonObject,
    clock: row.clock,
    data_type: row.data_type as DataType,
    judged_by: row.judged_by,
  });
  return { sequence: row.seq, createdAt: row.created_at, record };
}

/**
 * The body as jsonb for queries, or null when jsonb cannot hold it exactly
 * (a `\u0000` escape or a lone surrogate): those rows are decided in JS.
 * JSON.stringify escapes lone surrogates and never escapes paired ones.
 */
export function queryableBody(bodyJson: string): string | null {
  return /\\u0000|\\ud[89a-f]/i.test(bodyJson) ? null : bodyJson;
}
