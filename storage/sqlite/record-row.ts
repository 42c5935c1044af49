/**
 * The `records` row and its mapping to and from StoredRecord. Bodies and
 * parents are stored as JSON.stringify text and parsed back on read.
 */
import type { AcceptedRecord } from '../contract/journal/accepted-record.js';
import { contentText } from '../../core/records/content-text.js';
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
 * One inserted row as JSON for `jsonb_each` (append-batch.ts): the values
 * only the store has (sequence, index keys, judged_by, namespace, creation
 * time) as an array, with the record's canonical content text
 * (core/records/content-text.ts) spliced in as its last element. The body
 * and parents reach SQLite in the text ingest already wrote to hash the
 * record, not in a second serialisation of them.
 */
export function jsonRow(accepted: AcceptedRecord): string {
  const { stored, namespace } = accepted;
  const r = stored.record;
  // Written by hand (as the journal frame): integers, a 64-hex id, and two strings that may need escaping.
  const judged = r.judged_by === null ? 'null' : JSON.stringify(r.judged_by);
  return `[${stored.sequence},"${r.id}",${idKey(r.id)},${textKey(r.thread)},${textKey(r.actor)},${judged},${JSON.stringify(namespace)},${stored.createdAt},${contentText({ record: r, content: accepted.content })}]`;
}

/**
 * The SQL values of `jsonRow`'s elements, in INSERT_COLUMNS order: element
 * i is `value->>i` (an SQL value), the content's members are read from
 * element 8 by one path each, parents and body as JSON text (`->`). One
 * path, not `value->8->>'thread'`: `->` answers JSON text, so a chained
 * operator would parse element 8 again for every column.
 */
export const JSON_ROW_SELECT = [
  'value->>0', // seq
  'value->>1', // id
  'value->>2', // id_key
  "value->>'$[8].thread'",
  'value->>3', // thread_key
  "value->>'$[8].actor'",
  'value->>4', // actor_key
  "value->>'$[8].act'",
  "value->>'$[8].clock'",
  "value->>'$[8].data_type'",
  'value->>5', // judged_by
  'value->>6', // namespace
  'value->>7', // created_at
  "value->'$[8].parents'",
  "value->'$[8].body'",
].join(', ');

/** Appends the bind values of one inserted row to `into`, in INSERT_COLUMNS order. */
export function insertValues({ stored, namespace }: AcceptedRecord, into: BindValue[]): void {
  const r = stored.record;
  into.push(
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
    JSON.stringify(r.parents),
    JSON.stringify(r.body),
  );
}
