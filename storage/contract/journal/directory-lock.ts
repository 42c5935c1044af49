/**
 * One writer per ingest journal. The journal and the applier assume they are
 * the only writer: a second process appending frames to the same segments,
 * with sequences of its own, would interleave them and lose acknowledged
 * records. SQLite lets several processes open one database, so nothing else
 * stops an operator from starting `loom serve` twice on one data directory.
 *
 * The lock is a `LOCK` file created exclusively (`wx`) and holding the
 * owner's process id. A lock left by a process that no longer runs (a crash,
 * SIGKILL) is taken over, so a restart after a crash needs no clean-up. Node
 * has no advisory file locks (flock) without a native module; a pid file is
 * what PostgreSQL's postmaster.pid does too. Limits, documented: a stale lock
 * whose pid now belongs to another live process refuses until the file is
 * removed, and two processes taking over the same stale lock at the same
 * instant are not told apart.
 */
import { open, readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LoomError } from '../../../core/errors/loom-error.js';

export const LOCK_FILE_NAME = 'LOCK';

/** Lock files this process holds: its own pid in a file is stale only if it is not one of these. */
const heldHere = new Set<string>();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

export class DirectoryLock {
  private constructor(readonly path: string) {}

  /** Takes the lock on `directory` (which must exist), or refuses with SERVICE_UNAVAILABLE naming the owner. */
  static async acquire(directory: string): Promise<DirectoryLock> {
    const path = resolve(join(directory, LOCK_FILE_NAME));
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await open(path, 'wx');
        try {
          await handle.writeFile(`${process.pid}\n`);
        } finally {
          await handle.close();
        }
        heldHere.add(path);
        return new DirectoryLock(path);
      } catch (error) {
        if (errorCode(error) !== 'EEXIST' || attempt > 0) throw error;
      }
      const owner = await DirectoryLock.ownerOf(path);
      const ours = owner === process.pid;
      if (owner !== null && (ours ? heldHere.has(path) : isRunning(owner))) {
        throw new LoomError(
          'SERVICE_UNAVAILABLE',
          `${directory} is in use by ${ours ? 'another store in this process' : `process ${owner}`} (lock file ${path}): ` +
            'one Loom process per data directory; stop the other one, or delete the lock file if no Loom process uses the directory',
        );
      }
      // Stale (its process is gone) or unreadable: take it over.
      await rm(path, { force: true });
    }
  }

  private static async ownerOf(path: string): Promise<number | null> {
    try {
      const pid = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
      return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null;
      throw error;
    }
  }

  async release(): Promise<void> {
    if (!heldHere.delete(this.path)) return;
    await rm(this.path, { force: true });
  }
}
