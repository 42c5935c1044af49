/**
 * Loading the read/query dataset (records.ts) into a store, and sampling its
 * ids for random get-by-id.
 */
import { open } from 'node:fs/promises';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { PreparedRecord } from '../../storage/contract/stored-record.js';
import { INSERT_COLUMNS, insertValues, rowPlaceholders } from '../../storage/sqlite/record-row.js';
import type { BindValue } from '../../storage/sqlite/sqlite-database.js';
import { runPhaseInChild, seconds } from './harness.js';
import { datasetRecord } from './records.js';
import { RawSqlite } from './sqlite-raw.js';

const ROWS_PER_STATEMENT = 500;

/**
 * `count` ids of dataset records drawn uniformly from the first `records`
 * (recomputed from the deterministic dataset, so nothing has to be kept while loading).
 */
export function sampleDatasetIds(records: number, count: number, random: () => number): string[] {
  const ids: string[] = [];
  for (let k = 0; k < count; k++) ids.push(datasetRecord(Math.floor(random() * records), 0).record.id);
  return ids;
}

/** Records per appendMany call (the group commit splits it into batches of its maxBatch). */
const CHUNK = 4000;

/**
 * Appends dataset records [from, to) through `store.appendMany`, generating
 * the next chunk while the previous one is written. Returns records/s.
 */
export async function loadDataset(store: RecordStore, from: number, to: number, onProgress?: (done: number) => void): Promise<{ seconds: number; rate: number }> {
  const createdAt = Date.now();
  const start = performance.now();
  let pending: Promise<void> | null = null;
  let lastReport = start;
  for (let i = from; i < to; i += CHUNK) {
    const chunk: PreparedRecord[] = [];
    const end = Math.min(i + CHUNK, to);
    for (let j = i; j < end; j++) {
      chunk.push(datasetRecord(j, createdAt + j));
    }
    if (pending) await pending;
    pending = store.appendMany(chunk).then((outcomes) => {
      const refused = outcomes.filter((o) => o.status !== 'inserted').length;
      if (refused > 0) throw new Error(`loading: ${refused} of ${outcomes.length} records not inserted`);
    });
    if (onProgress && performance.now() - lastReport > 15_000) {
      lastReport = performance.now();
      onProgress(i);
    }
  }
  if (pending) await pending;
  const elapsed = seconds(start);
  return { seconds: elapsed, rate: Math.round((to - from) / elapsed) };
}

/**
 * Appends dataset records [from, to) to the SQLite file of a SqliteRecordStore
 * that is closed, through a bare connection tuned only for loading
 * (no journal, synchronous OFF, a 1 GB page cache, 50k-row transactions;
 * WAL mode is restored and the file fsync'd at the end). Rows are the
 * driver's own (`insertValues`), inserted in sequence order into the
 * driver's schema with all its indexes in place, so the file is laid out as
 * if the store had appended them; only the loading is faster.
 */
export interface BulkLoad {
  readonly path: string;
  readonly from: number;
  readonly to: number;
}

export async function bulkLoadSqlite({ path, from, to }: BulkLoad): Promise<{ seconds: number; rate: number }> {
  const db = await RawSqlite.open(path);
  await db.exec(`PRAGMA synchronous = OFF; PRAGMA cache_size = -1048576;`);
  await db.get('PRAGMA journal_mode = OFF');
  const createdAt = Date.now();
  const start = performance.now();
  const TX = 50_000;
  try {
    for (let t = from; t < to; t += TX) {
      await db.exec('BEGIN IMMEDIATE');
      const end = Math.min(t + TX, to);
      // Build the next statement's rows while the previous one runs in the thread pool.
      let running: Promise<void> | null = null;
      for (let s = t; s < end; s += ROWS_PER_STATEMENT) {
        const stop = Math.min(s + ROWS_PER_STATEMENT, end);
        const params: BindValue[] = [];
        for (let i = s; i < stop; i++) {
          const prepared = datasetRecord(i, createdAt + i);
          insertValues({ stored: { sequence: i + 1, createdAt: prepared.createdAt, record: prepared.record }, namespace: prepared.namespace }, params);
        }
        if (running) await running;
        running = db.run(`INSERT INTO records (${INSERT_COLUMNS}) VALUES ${rowPlaceholders(stop - s)}`, params);
      }
      if (running) await running;
      // The driver keeps per-thread summaries as it applies batches; so does the loader.
      await db.run(
        `INSERT INTO threads (thread, record_count, first_seq, last_seq)
           SELECT thread, COUNT(*), MIN(seq), MAX(seq) FROM records WHERE seq > ? AND seq <= ? GROUP BY thread
           ON CONFLICT (thread) DO UPDATE SET record_count = record_count + excluded.record_count, last_seq = excluded.last_seq`,
        [t, end],
      );
      await db.exec('COMMIT');
    }
    await db.get('PRAGMA journal_mode = WAL');
  } finally {
    await db.close();
  }
  // synchronous=OFF left hundreds of MB for the kernel to write back; doing it
  // now keeps that writeback out of the latencies measured next.
  const file = await open(path, 'r');
  try {
    await file.sync();
  } finally {
    await file.close();
  }
  const elapsed = seconds(start);
  return { seconds: elapsed, rate: Math.round((to - from) / elapsed) };
}

/**
 * `bulkLoadSqlite` in a child process (the benchmark file's `bulk-sqlite`
 * phase), so its 1 GB loading cache does not count in the measuring
 * process's peak RSS.
 */
export async function bulkLoadSqliteInChild(moduleUrl: string, load: BulkLoad): Promise<{ seconds: number; rate: number }> {
  const { value } = await runPhaseInChild<{ seconds: number; rate: number }>(moduleUrl, 'bulk-sqlite', load, 30 * 60_000);
  return value;
}
