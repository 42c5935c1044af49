/**
 * The few things `loom export`, `import` and `restore` run in this process
 * instead of through a server (a stopped server's data directory, the export
 * file check). They need the reference server's drivers and plugins, which
 * cli/ never imports: bin/loom.ts provides them (server/store/local-store.ts),
 * loaded only when asked for.
 */
import type { Transform } from 'node:stream';

export type OfflineStorage = 'sqlite' | 'level';

export interface LocalImportResult {
  readonly records_read: number;
  readonly records_inserted: number;
  readonly records_deduplicated: number;
  readonly records_refused: number;
  readonly refusals: ReadonlyArray<{ line: number; id: string; code: string; message: string }>;
  readonly checksum: string;
  readonly last_sequence: number | null;
}

export interface LocalStore {
  readonly backupManifest: string;
  readonly backupFormat: number;
  checkExportFile(file: string): Promise<{ problem: string | null }>;
  exportFromDataDir(dir: string, storage: OfflineStorage, scope: Record<string, string>, counter: Transform, sink: NodeJS.WritableStream): Promise<void>;
  importIntoDataDir(dir: string, storage: OfflineStorage, file: string, onRecords: (recordsRead: number) => void): Promise<LocalImportResult>;
  restoredWatermark(backend: OfflineStorage, dir: string): Promise<number>;
  /** A PostgreSQL backup's dump into a database, under the schema it was taken from; its head. */
  restorePostgres(storeDir: string, connectionString: string): Promise<{ schema: string; watermark: number }>;
}

let provider: (() => Promise<LocalStore>) | undefined;

/** Called once by the entry point (bin/loom.ts). */
export function provideLocalStore(load: () => Promise<LocalStore>): void {
  provider = load;
}

export function localStore(): Promise<LocalStore> {
  if (!provider) throw new Error('no local store was provided (run loom through bin/loom.js)');
  return provider();
}
