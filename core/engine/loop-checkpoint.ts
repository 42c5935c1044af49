/**
 * How far a log consumer (core/engine/log-consumer.ts) has handled the log, kept so a
 * restart resumes there. With a log of its own, a small JSON file in the
 * plugin's data directory (written atomically). With a shared log, the store
 * keeps it (RecordStore.readCheckpoint/writeCheckpoint), so the server that
 * takes the leader lease over resumes where the last leader stopped rather
 * than from its own stale file or the head.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RecordStore } from '../../storage/contract/record-store.js';

export interface LoopCheckpoint {
  /** The saved sequence, or null when none was saved. */
  read(): Promise<number | null>;
  write(sequence: number): Promise<void>;
}

const valid = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/**
 * The checkpoint `name` of a loop: in `store` when it is a shared log (pass
 * null for per-server work, whose position must not be shared), else in
 * `file` (null: none kept).
 */
export function loopCheckpoint(store: RecordStore | null, name: string, file: string | null): LoopCheckpoint | null {
  if (store && store.capabilities.sharedLog && store.readCheckpoint && store.writeCheckpoint) {
    return { read: () => store.readCheckpoint!(name), write: (sequence) => store.writeCheckpoint!(name, sequence) };
  }
  if (file === null) return null;
  return {
    async read() {
      try {
        const saved = JSON.parse(await readFile(file, 'utf8')) as { after?: unknown };
        return valid(saved.after) ? saved.after : null;
      } catch {
        return null;
      }
    },
    async write(sequence) {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file + '.tmp', JSON.stringify({ after: sequence }) + '\n');
      await rename(file + '.tmp', file);
    },
  };
}
