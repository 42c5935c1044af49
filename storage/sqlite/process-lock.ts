/**
 * One store per SQLite database. The write path (sequences, the ingest
 * journal, the applier) assumes it is the only writer, but SQLite itself
 * lets any number of processes open one database in WAL mode, so nothing
 * else would stop an operator from starting `loom serve` twice on one data
 * directory: the two would interleave journal frames and hand out the same
 * sequences.
 *
 * The lock is an operating-system lock, not a pid file: a connection to the
 * side file `<database>.lock` in `locking_mode=EXCLUSIVE` holding an open
 * `BEGIN EXCLUSIVE`. SQLite takes it as a POSIX advisory lock (fcntl), so
 * - another process trying the same gets SQLITE_BUSY at once;
 * - another connection in this process (a second store, a worker thread, a
 *   path through a symlink) is refused too, since SQLite tracks locks per
 *   file (device and inode) across its connections;
 * - the kernel drops it when the process dies, SIGKILL included, so a
 *   restart after a crash never finds a stale lock.
 * (LevelDB takes the same kind of lock on its directory by itself.)
 */
import { dataDirectoryInUse } from '../contract/data-directory-in-use.js';
import { SqliteDatabase } from './sqlite-database.js';

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

export class ProcessLock {
  private constructor(private connection: SqliteDatabase | null) {}

  /** Locks `databasePath` (through `<databasePath>.lock`) or refuses with SERVICE_UNAVAILABLE. */
  static async acquire(databasePath: string): Promise<ProcessLock> {
    const lockPath = `${databasePath}.lock`;
    // No busy timeout: a held lock is refused at once, not waited for.
    const connection = await SqliteDatabase.open(lockPath, { busyTimeoutMs: 0 });
    try {
      await connection.exec('PRAGMA locking_mode = EXCLUSIVE');
      await connection.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      await connection.close().catch(() => undefined);
      if (!isBusy(error)) throw error;
      throw dataDirectoryInUse(databasePath, `lock ${lockPath}`);
    }
    return new ProcessLock(connection);
  }

  /** Releases the lock (closing its connection ends the transaction and the file lock). */
  async release(): Promise<void> {
    const connection = this.connection;
    this.connection = null;
    if (connection) await connection.close();
  }
}
