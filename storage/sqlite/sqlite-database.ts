/**
 * The one place that knows node-sqlite3's callback API: a promise wrapper over
 * one connection. Calls run one at a time, in call order. `exclusive` and
 * `transaction` hold the connection for a multi-statement unit, because
 * node-sqlite3 would otherwise run another caller's statement inside our open
 * transaction (it would see uncommitted rows, or be rolled back with ours).
 */
import sqlite3 from 'sqlite3';

/** What may be bound to a `?`. Booleans are bound as 0/1 by the caller. */
export type BindValue = string | number | null;

export interface RunResult {
  readonly lastId: number;
  readonly changes: number;
}

/** The statements a caller may issue, either queued or while holding the connection. */
export interface SqliteSession {
  run(sql: string, params?: readonly BindValue[]): Promise<RunResult>;
  all<T>(sql: string, params?: readonly BindValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly BindValue[]): Promise<T | undefined>;
  /** Streams rows to `onRow` without holding them all; resolves with the row count. */
  each<T>(sql: string, params: readonly BindValue[], onRow: (row: T) => void): Promise<number>;
  /** Runs one or more statements without parameters (schema, pragmas). */
  exec(sql: string): Promise<void>;
}

export type TransactionMode = 'DEFERRED' | 'IMMEDIATE';

export interface SqliteOpenOptions {
  /** How long a statement waits for another connection's lock, in ms. @default 5000 */
  readonly busyTimeoutMs?: number;
}

/** The raw calls, with no queueing: used only while the queue is held. */
function sessionOf(db: sqlite3.Database): SqliteSession {
  return {
    run: (sql, params = []) =>
      new Promise((resolve, reject) => {
        db.run(sql, params, function (this: sqlite3.RunResult, error: Error | null) {
          if (error) reject(error);
          else resolve({ lastId: this.lastID, changes: this.changes });
        });
      }),
    all: <T>(sql: string, params: readonly BindValue[] = []) =>
      new Promise<T[]>((resolve, reject) => {
        db.all<T>(sql, params, (error, rows) => (error ? reject(error) : resolve(rows)));
      }),
    get: <T>(sql: string, params: readonly BindValue[] = []) =>
      new Promise<T | undefined>((resolve, reject) => {
        db.get<T>(sql, params, (error, row) => (error ? reject(error) : resolve(row)));
      }),
    each: <T>(sql: string, params: readonly BindValue[], onRow: (row: T) => void) =>
      new Promise<number>((resolve, reject) => {
        let failure: unknown = null;
        db.each<T>(
          sql,
          params,
          (error, row) => {
            if (error || failure !== null) {
              failure ??= error;
              return;
            }
            try {
              onRow(row);
            } catch (thrown) {
              failure = thrown;
            }
          },
          (error, count) => {
            if (failure !== null || error) reject(failure ?? error);
            else resolve(count);
          },
        );
      }),
    exec: (sql) =>
      new Promise<void>((resolve, reject) => {
        db.exec(sql, (error) => (error ? reject(error) : resolve()));
      }),
  };
}

export class SqliteDatabase implements SqliteSession {
  /** Settles when every call queued so far has finished. */
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly db: sqlite3.Database,
    private readonly session: SqliteSession,
  ) {}

  /** Opens (creating if needed) the database file at `path`. */
  static open(path: string, options: SqliteOpenOptions = {}): Promise<SqliteDatabase> {
    return new Promise((resolve, reject) => {
      const db = new sqlite3.Database(path, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE | sqlite3.OPEN_FULLMUTEX, (error) => {
        if (error) return reject(error);
        db.configure('busyTimeout', options.busyTimeoutMs ?? 5000);
        resolve(new SqliteDatabase(db, sessionOf(db)));
      });
    });
  }

  run(sql: string, params?: readonly BindValue[]): Promise<RunResult> {
    return this.exclusive((s) => s.run(sql, params));
  }

  all<T>(sql: string, params?: readonly BindValue[]): Promise<T[]> {
    return this.exclusive((s) => s.all<T>(sql, params));
  }

  get<T>(sql: string, params?: readonly BindValue[]): Promise<T | undefined> {
    return this.exclusive((s) => s.get<T>(sql, params));
  }

  each<T>(sql: string, params: readonly BindValue[], onRow: (row: T) => void): Promise<number> {
    return this.exclusive((s) => s.each<T>(sql, params, onRow));
  }

  exec(sql: string): Promise<void> {
    return this.exclusive((s) => s.exec(sql));
  }

  /** Runs `task` with sole use of the connection: no other call interleaves. */
  exclusive<T>(task: (session: SqliteSession) => Promise<T>): Promise<T> {
    const result = this.tail.then(() => task(this.session));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs `task` inside BEGIN … COMMIT with sole use of the connection, rolling
   * back if it throws. Resolves only after COMMIT has returned, so (with
   * synchronous=FULL) what it wrote is durable.
   */
  transaction<T>(mode: TransactionMode, task: (session: SqliteSession) => Promise<T>): Promise<T> {
    return this.exclusive(async (s) => {
      await s.exec(mode === 'IMMEDIATE' ? 'BEGIN IMMEDIATE' : 'BEGIN DEFERRED');
      let result: T;
      try {
        result = await task(s);
        await s.exec('COMMIT');
      } catch (error) {
        // A failed COMMIT can leave the transaction open; ROLLBACK is then
        // required, and harmless ("no transaction is active") otherwise.
        await s.exec('ROLLBACK').catch(() => undefined);
        throw error;
      }
      return result;
    });
  }

  /** Closes after every queued call has finished. */
  close(): Promise<void> {
    return this.exclusive(
      () =>
        new Promise<void>((resolve, reject) => {
          this.db.close((error) => (error ? reject(error) : resolve()));
        }),
    );
  }
}
