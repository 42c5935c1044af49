/**
 * What the portability routes share: a read-only view of the log (the
 * pages an export walks, the driver's online copy), where the data directory
 * is, which plugin state a backup keeps, and who this instance is.
 */
import { token } from '../../core/di/token.js';
import type { Ingestor } from '../../core/engine/ingest.js';
import type { BackupState } from '../../core/plugin/backup-state.js';
import type { RecordStore } from '../../storage/contract/record-store.js';

/**
 * The part of the store an export and a backup read: no append, no open or
 * close. The routes hold this, never the store (route-coverage.test.ts).
 */
export type PortableLog = Pick<RecordStore, 'capabilities' | 'watermark' | 'listByThread' | 'listByActor' | 'changesSince' | 'backup'>;

/** A view of `store` holding only what PortableLog names. */
export function portableLog(store: RecordStore): PortableLog {
  const backup = store.backup?.bind(store);
  return {
    capabilities: store.capabilities,
    watermark: () => store.watermark(),
    listByThread: (thread, page) => store.listByThread(thread, page),
    listByActor: (actor, page) => store.listByActor(actor, page),
    changesSince: (after, limit) => store.changesSince(after, limit),
    ...(backup ? { backup } : {}),
  };
}

export interface Portability {
  readonly log: PortableLog;
  readonly ingestor: Ingestor;
  /** Records on these threads are imported one at a time (LogImporter). */
  readonly isSystemThread: (thread: string) => boolean;
  readonly dataDir: string | null;
  readonly backupState: BackupState;
  readonly loomVersion: string;
  readonly instance: string;
}

export const PortabilityToken = token<Portability>('portability.Portability');
