/**
 * What a backup holds besides the log. Everything derived from the log
 * (folds, search indexes, checkpoints) is rebuilt at start and left out; a
 * plugin names, with `scope.backupState`, the files under its data directory
 * that are not derived and would be lost otherwise: keys, secrets, file
 * bytes. They are copied after the log's snapshot, so they must be safe to
 * copy while the server runs: immutable (content-addressed blobs) or
 * replaced atomically (written aside, then renamed).
 */
import { token } from '../di/token.js';

export interface BackupStateEntry {
  readonly plugin: string;
  /** Relative to the data directory, e.g. `plugins/data-plane/blobs`; a file or a directory. */
  readonly path: string;
}

export class BackupState {
  private readonly entries: BackupStateEntry[] = [];

  add(entry: BackupStateEntry): void {
    if (entry.path.split('/').some((part) => part === '..' || part === '')) throw new Error(`backup state path ${entry.path} must stay inside the data directory`);
    this.entries.push(entry);
  }

  list(): readonly BackupStateEntry[] {
    return this.entries;
  }
}

export const BackupStateToken = token<BackupState>('BackupState');
