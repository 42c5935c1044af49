/**
 * The refusal a driver gives when another store holds its data (another
 * process, or another store in this one): the write path and the ingest
 * journal assume a single writer. One message for every driver, so the
 * operator reads the same thing whichever storage they run.
 */
import { LoomError } from '../../core/errors/loom-error.js';

/** `path` is what is locked; `lock` says which lock is held (a file, or the engine's own). */
export function dataDirectoryInUse(path: string, lock: string): LoomError {
  return new LoomError(
    'SERVICE_UNAVAILABLE',
    `${path} is in use by another Loom process or store (${lock} is held): one Loom process per data directory; ` +
      'stop the other one first (the lock is released by the operating system when its process ends, so a crashed process never leaves it behind)',
  );
}
