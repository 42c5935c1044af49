/**
 * The write path of one group-commit batch, run inside the caller's
 * BEGIN IMMEDIATE transaction: look up what the batch collides with, then
 * insert the rest with multi-row INSERTs (one statement per row costs a
 * thread-pool round trip each; style guide §5).
 */
import { clockSlotKey, type AppendOutcome, type PreparedRecord, type StoredRecord } from '../contract/stored-record.js';
import type { LoomRecord } from '../../core/records/record.js';
import { INSERT_COLUMN_COUNT, INSERT_COLUMNS, RECORD_COLUMNS, insertValues, rowToStored, type RecordRow } from './record-row.js';
import type { BindValue, SqliteSession } from './sqlite-database.js';

/** Rows per lookup or insert statement: 500 × 12 binds stays far below SQLite's 32766. */
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

async function storedByIds(session: SqliteSession, ids: readonly string[]): Promise<Map<string, StoredRecord>> {
  const found = new Map<string, StoredRecord>();
  for (const chunk of chunks(ids, ROWS_PER_STATEMENT)) {
    const rows = await session.all<RecordRow>(`SELECT ${RECORD_COLUMNS} FROM records WHERE id IN (${chunk.map(() => '?').join(', ')})`, chunk);
    for (const row of rows) found.set(row.id, rowToStored(row));
  }
  return found;
}

async function storedBySlots(session: SqliteSession, records: readonly LoomRecord[]): Promise<Map<string, StoredRecord>> {
  const found = new Map<string, StoredRecord>();
  for (const chunk of chunks(records, ROWS_PER_STATEMENT)) {
    const params: BindValue[] = chunk.flatMap((r) => [r.actor, r.thread, r.clock]);
    // Row-value IN over a VALUES list is answered from the UNIQUE(actor, thread, clock) index.
    const sql = `SELECT ${RECORD_COLUMNS} FROM records WHERE (actor, thread, clock) IN (VALUES ${placeholders(chunk.length, 3)})`;
    for (const row of await session.all<RecordRow>(sql, params)) {
      const stored = rowToStored(row);
      found.set(clockSlotKey(stored.record), stored);
    }
  }
  return found;
}

/** The highest sequence ever assigned (AUTOINCREMENT's counter), 0 on an empty store. */
async function lastSequence(session: SqliteSession): Promise<number> {
  const row = await session.get<{ seq: number }>(
    `SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'records'), 0), COALESCE((SELECT MAX(seq) FROM records), 0)) AS seq`,
  );
  return row?.seq ?? 0;
}

async function insertAll(session: SqliteSession, rows: ReadonlyArray<{ stored: StoredRecord; prepared: PreparedRecord }>): Promise<void> {
  for (const chunk of chunks(rows, ROWS_PER_STATEMENT)) {
    const params: BindValue[] = [];
    for (const { stored, prepared } of chunk) insertValues(stored.sequence, prepared, params);
    await session.run(`INSERT INTO records (${INSERT_COLUMNS}) VALUES ${placeholders(chunk.length, INSERT_COLUMN_COUNT)}`, params);
  }
}

/**
 * Stores a batch with no internal conflicts; the caller holds the write lock
 * (BEGIN IMMEDIATE), so the sequences read here cannot be taken by anyone
 * else. Sequences are assigned explicitly, in batch order, continuing
 * AUTOINCREMENT's counter (which SQLite then advances to the largest one).
 */
export async function appendBatch(session: SqliteSession, batch: readonly PreparedRecord[]): Promise<AppendOutcome[]> {
  if (batch.length === 0) return [];
  const byId = await storedByIds(session, batch.map((p) => p.record.id));
  // A record whose id is stored holds its own slot, so only the others can collide on one.
  const bySlot = await storedBySlots(session, batch.filter((p) => !byId.has(p.record.id)).map((p) => p.record));
  let sequence = await lastSequence(session);
  const outcomes: AppendOutcome[] = [];
  const inserts: Array<{ stored: StoredRecord; prepared: PreparedRecord }> = [];
  for (const prepared of batch) {
    const sameId = byId.get(prepared.record.id);
    if (sameId) {
      outcomes.push({ status: 'exists', stored: sameId });
      continue;
    }
    const slotHolder = bySlot.get(clockSlotKey(prepared.record));
    if (slotHolder) {
      outcomes.push({ status: 'duplicate_clock', existing: slotHolder });
      continue;
    }
    const stored: StoredRecord = { sequence: ++sequence, createdAt: prepared.createdAt, record: prepared.record };
    inserts.push({ stored, prepared });
    outcomes.push({ status: 'inserted', stored });
  }
  await insertAll(session, inserts);
  return outcomes;
}
