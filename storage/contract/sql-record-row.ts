/**
 * The record row the SQL drivers share: the select list that yields it, and
 * its mapping to a StoredRecord (parents and body stored as their
 * JSON.stringify text, parsed back on read).
 */
import type { Act } from '../../core/records/acts.js';
import type { DataType } from '../../core/records/data-types.js';
import type { JsonObject } from '../../core/records/json.js';
import { makeRecord } from '../../core/records/record.js';
import type { StoredRecord } from './stored-record.js';

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

/** The select list that yields a RecordRow. */
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

