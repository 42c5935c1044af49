/**
 * The `records` row and its mapping to and from StoredRecord. Bodies and
 * parents are stored as JSON.stringify text and parsed back on read.
 */
import type { AcceptedRecord } from '../contract/journal/accepted-record.js';
import { idKey, textKey } from './index-keys.js';
import type { BindValue } from './sqlite-database.js';

export { RECORD_COLUMNS, rowToStored, type RecordRow } from '../contract/sql-record-row.js';

/** Column list of an insert, in the order of `insertValues`. */
export const INSERT_COLUMNS = 'seq, id, id_key, thread, thread_key, actor, actor_key, act, clock, data_type, judged_by, namespace, created_at, parents, body';
export const INSERT_COLUMN_COUNT = 15;

const ROW_PLACEHOLDER = `(${new Array(INSERT_COLUMN_COUNT).fill('?').join(', ')})`;
const placeholderCache = new Map<number, string>();

/** `(?, …), (?, …)` for `rows` inserted rows. */
export function rowPlaceholders(rows: number): string {
  let text = placeholderCache.get(rows);
  if (text === undefined) {
    text = new Array(rows).fill(ROW_PLACEHOLDER).join(', ');
    if (placeholderCache.size < 64) placeholderCache.set(rows, text);
  }
  return text;
}

/**
 * One inserted row as a JSON array for `jsonb_each` (append-batch.ts): the
 * values of `insertValues`, except that parents and body stay JSON values
 * (the statement takes their text with `->`), so the body is serialised once,
 * inside the batch's single JSON.stringify, instead of into a string that
 * is then escaped again.
 */
export function jsonRowValues({ stored, namespace }: AcceptedRecord): unknown[] {
  const r = stored.record;
  return [
    stored.sequence,
    r.id,
    idKey(r.id),
    r.thread,
    textKey(r.thread),
    r.actor,
    textKey(r.actor),
    r.act,
    r.clock,
    r.data_type,
    r.judged_by,
    namespace,
    stored.createdAt,
    r.parents,
    r.body,
  ];
}

/** Appends the bind values of one inserted row to `into`: `jsonRowValues` with parents and body as JSON text. */
export function insertValues(accepted: AcceptedRecord, into: BindValue[]): void {
  const row = jsonRowValues(accepted);
  const body = row.pop();
  const parents = row.pop();
  into.push(...(row as BindValue[]), JSON.stringify(parents), JSON.stringify(body));
}
