/**
 * What the portability routes share: the store, where the data directory
 * is, which plugin state a backup keeps, and who this instance is.
 */
import { token } from '../../core/di/token.js';
import type { Ingestor } from '../../core/engine/ingest.js';
import type { BackupState } from '../../core/plugin/backup-state.js';
import type { RecordStore } from '../../storage/contract/record-store.js';

export interface Portability {
  readonly store: RecordStore;
  readonly ingestor: Ingestor;
  /** Records on these threads are imported one at a time (LogImporter). */
  readonly isSystemThread: (thread: string) => boolean;
  readonly dataDir: string | null;
  readonly backupState: BackupState;
  readonly loomVersion: string;
  readonly instance: string;
}

export const PortabilityToken = token<Portability>('portability.Portability');
