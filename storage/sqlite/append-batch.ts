/**
 * The write path's two statements kinds: finding the stored holders of a
 * batch's (actor, thread, clock) slots, and inserting an accepted batch with
 * multi-row INSERTs inside the caller's transaction (one statement per row
 * would cost a thread-pool round trip each; style guide §5).
 */
import type { AcceptedRecord } from '../contract/journal/accepted-record.js';
import { clockSlotKey, type StoredRecord } from '../contract/stored-record.js';
import type { LoomRecord } from '../../core/records/record.js';
import { textKey } from './index-keys.js';
import { INSERT_COLUMNS, RECORD_COLUMNS, insertValues, rowPlaceholders, rowToStored, type RecordRow } from './record-row.js';
import type { BindValue, SqliteDatabase, SqliteSession } from './sqlite-database.js';

/** Rows per lookup or insert statement: 500 × 15 binds stays far below SQLite's 32766. */
export const ROWS_PER_STATEMENT = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function placeholders(rows: number, columns: number): string {
  const row = `(${new Array(columns).fill('?').join(', ')})`;
  return new Array(rows).fill(row).join(', ');
}

/** Stored records holding any of the records' (actor, thread, clock) slots. */
export async function storedBySlots(db: SqliteDatabase, records: readonly LoomRecord[]): Promise<StoredRecord[]> {
  const found: StoredRecord[] = [];
  for (const chunk of chunks(records, ROWS_PER_STATEMENT)) {
    const wanted = new Set(chunk.map(clockSlotKey));
    const params: BindValue[] = chunk.flatMap((r) => [textKey(r.actor), textKey(r.thread), r.clock]);
    // Row-value IN over a VALUES list is answered from the records_slot index; keys may
    // collide, so the exact slot is checked on the rows found.
    const sql = `SELECT ${RECORD_COLUMNS} FROM records WHERE (actor_key, thread_key, clock) IN (VALUES ${placeholders(chunk.length, 3)})`;
    for (const row of await db.all<RecordRow>(sql, params)) {
      const stored = rowToStored(row);
      if (wanted.has(clockSlotKey(stored.record))) found.push(stored);
    }
  }
  return found;
}

/**
 * Inserts accepted records with their sequences and adds them to the thread
 * summaries; the caller holds the write transaction.
 */
export async function insertAccepted(session: SqliteSession, records: readonly AcceptedRecord[]): Promise<void> {
  for (const chunk of chunks(records, ROWS_PER_STATEMENT)) {
    const params: BindValue[] = [];
    for (const accepted of chunk) insertValues(accepted, params);
    await session.run(`INSERT INTO records (${INSERT_COLUMNS}) VALUES ${rowPlaceholders(chunk.length)}`, params);
  }
  const summaries = new Map<string, { count: number; first: number; last: number }>();
  for (const { stored } of records) {
    const summary = summaries.get(stored.record.thread);
    if (summary) {
      summary.count++;
      summary.last = stored.sequence;
    } else summaries.set(stored.record.thread, { count: 1, first: stored.sequence, last: stored.sequence });
  }
  for (const chunk of chunks([...summaries], ROWS_PER_STATEMENT)) {
    const params: BindValue[] = chunk.flatMap(([thread, s]) => [thread, s.count, s.first, s.last]);
    await session.run(
      `INSERT INTO threads (thread, record_count, first_seq, last_seq) VALUES ${placeholders(chunk.length, 4)}
         ON CONFLICT (thread) DO UPDATE SET record_count = record_count + excluded.record_count, last_seq = excluded.last_seq`,
      params,
    );
  }
}
