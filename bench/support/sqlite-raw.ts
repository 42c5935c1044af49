/**
 * A bare node-sqlite3 connection with promise calls: the baselines and the
 * forced-scan query use it, so they measure SQLite itself, not Loom's wrapper;
 * plus the driver's current schema and pragmas, read from the driver itself.
 */
import sqlite3 from 'sqlite3';
import type { SqliteDatabase } from '../../storage/sqlite/sqlite-database.js';
import { SqliteRecordStore } from '../../storage/sqlite/sqlite-record-store.js';

export type Bind = string | number | null;

export class RawSqlite {
  private constructor(private readonly db: sqlite3.Database) {}

  static open(path: string, readOnly = false): Promise<RawSqlite> {
    const mode = readOnly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(path, mode, (error) => (error ? reject(error) : resolve(new RawSqlite(db))));
    });
  }

  run(sql: string, params: readonly Bind[] = []): Promise<void> {
    return new Promise((resolve, reject) => this.db.run(sql, params, (error: Error | null) => (error ? reject(error) : resolve())));
  }

  all<T>(sql: string, params: readonly Bind[] = []): Promise<T[]> {
    return new Promise((resolve, reject) => this.db.all<T>(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))));
  }

  get<T>(sql: string, params: readonly Bind[] = []): Promise<T | undefined> {
    return new Promise((resolve, reject) => this.db.get<T>(sql, params, (error, row) => (error ? reject(error) : resolve(row))));
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (error) => (error ? reject(error) : resolve())));
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.db.close((error) => (error ? reject(error) : resolve())));
  }
}

/** The writer pragmas a SqliteRecordStore sets, and the indexes its schema creates. */
export interface DriverSetup {
  /** e.g. [['synchronous', 2], ['cache_size', -65536], ['wal_autocheckpoint', 10000]] */
  readonly pragmas: ReadonlyArray<readonly [string, number | string]>;
  /** Index names on `records`, including the automatic ones of UNIQUE constraints. */
  readonly indexes: string[];
}

const COPIED_PRAGMAS = ['journal_mode', 'synchronous', 'cache_size', 'wal_autocheckpoint'] as const;

/**
 * Opens a SqliteRecordStore on `path` (creating the driver's current schema
 * there), reads the pragmas its writer connection runs with, and closes it,
 * so the raw baselines use the driver's schema and settings as they are now,
 * not a copy that could drift. Reading the pragmas reaches into the store's
 * private connection; if that changes shape this throws rather than guessing.
 */
export async function createDriverSchema(path: string, durability: 'full' | 'normal'): Promise<DriverSetup> {
  const store = new SqliteRecordStore({ path, durability });
  await store.open();
  const pragmas: Array<[string, number | string]> = [];
  try {
    const writer = (store as unknown as { connections?: { writer?: SqliteDatabase } }).connections?.writer;
    if (!writer || typeof writer.get !== 'function') throw new Error("bench/support/sqlite-raw.ts: cannot reach SqliteRecordStore's writer connection to copy its pragmas");
    for (const name of COPIED_PRAGMAS) {
      const row = await writer.get<Record<string, number | string>>(`PRAGMA ${name}`);
      if (row?.[name] === undefined) throw new Error(`PRAGMA ${name} returned nothing`);
      pragmas.push([name, row[name]!]);
    }
  } finally {
    await store.close();
  }
  const db = await RawSqlite.open(path, true);
  const indexes = (await db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'records' ORDER BY name")).map((r) => r.name);
  await db.close();
  return { pragmas, indexes };
}

/** Applies the pragmas read by `createDriverSchema` to a bare connection. */
export async function applyPragmas(db: RawSqlite, setup: DriverSetup): Promise<void> {
  for (const [name, value] of setup.pragmas) await db.all(`PRAGMA ${name} = ${typeof value === 'number' ? value : `'${value}'`}`);
}

/** The same columns with no constraints or secondary indexes. */
export const BARE_TABLE_DDL = `CREATE TABLE records (
     seq        INTEGER PRIMARY KEY,
     id         TEXT    NOT NULL,
     thread     TEXT    NOT NULL,
     actor      TEXT    NOT NULL,
     act        TEXT    NOT NULL,
     clock      INTEGER NOT NULL,
     data_type  TEXT    NOT NULL,
     judged_by  TEXT,
     namespace  TEXT    NOT NULL,
     created_at INTEGER NOT NULL,
     parents    TEXT    NOT NULL,
     body       TEXT    NOT NULL
   );`;

export const INSERT_COLUMNS = 'seq, id, thread, actor, act, clock, data_type, judged_by, namespace, created_at, parents, body';
export const COLUMN_COUNT = 12;

const insertSql = new Map<number, string>();

/** `INSERT INTO records (...) VALUES (?, …), …` for `rows` rows. */
export function multiRowInsert(rows: number): string {
  let sql = insertSql.get(rows);
  if (!sql) {
    const row = `(${new Array(COLUMN_COUNT).fill('?').join(', ')})`;
    sql = `INSERT INTO records (${INSERT_COLUMNS}) VALUES ${new Array(rows).fill(row).join(', ')}`;
    insertSql.set(rows, sql);
  }
  return sql;
}
