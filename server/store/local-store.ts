/**
 * What `loom export`, `loom import` and `loom restore` run in this process
 * rather than through a server: reading or writing a stopped server's data
 * directory with the reference server's drivers and plugins, and the
 * portability plugin's export-file check. The commands live in cli/ (they
 * talk to a running server through the SDK otherwise); bin/loom.ts hands
 * them this module (cli/kit/local-store.ts), so cli/ names no plugin and no
 * driver. Loaded only when one of those commands runs.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CliError } from '../../command/cli-error.js';
import { SYSTEM } from '../../core/access/caller.js';
import { resolve } from '../../core/di/token.js';
import { jsonLogger } from '../../core/plugin/logger.js';
import { LOOM_VERSION } from '../../core/server/version.js';
import { BACKUP_FORMAT, BACKUP_MANIFEST, checkExportFile as checkLines, exportLines, importLines, LogImporter, PortabilityToken, type ImportResult } from '../../plugins/portability/index.js';
import { createReferenceLoom, openReferenceStore } from '../reference-loom.js';

export type OfflineStorage = 'sqlite' | 'level';

/** A SQLite or LevelDB lock held by a running server, said in the operator's terms. */
function inUse(error: unknown, dir: string): never {
  const message = error instanceof Error ? error.message : String(error);
  throw new CliError(`cannot open the log in ${dir}: ${message}\n  a running server holds it: use --url to go through that server, or stop it first`, 1);
}

export const backupManifest = BACKUP_MANIFEST;
export const backupFormat = BACKUP_FORMAT;

/** The whole file's framing (header, end line, checksum), before anything is stored. */
export async function checkExportFile(file: string): Promise<{ problem: string | null }> {
  return checkLines(createInterface({ input: createReadStream(file), crlfDelay: Infinity }));
}

/** Streams a stopped server's log (`dir`, absolute) as an export through `counter` into `sink`. */
export async function exportFromDataDir(dir: string, storage: OfflineStorage, scope: Record<string, string>, counter: Transform, sink: NodeJS.WritableStream): Promise<void> {
  const store = openReferenceStore(storage, dir, 'full', {});
  await store.open().catch((error: unknown) => inUse(error, dir));
  try {
    const instance = await readFile(join(dir, 'instance.json'), 'utf8').then((text) => (JSON.parse(text) as { did?: string }).did ?? 'unknown', () => 'unknown');
    const range = {
      ...(scope['thread'] ? { thread: scope['thread'] } : {}),
      ...(scope['actor'] ? { actor: scope['actor'] } : {}),
      ...(scope['namespace'] ? { namespace: scope['namespace'] } : {}),
      ...(scope['after'] ? { after: Number(scope['after']) } : {}),
      ...(scope['until'] ? { until: Number(scope['until']) } : {}),
    };
    await pipeline(Readable.from(exportLines({ store, loomVersion: LOOM_VERSION, instance }, range)), counter, sink, { end: sink !== process.stdout });
  } finally {
    await store.close();
  }
}

/** Imports an export file into a stopped server's data directory through the server's own checks and gates. */
export async function importIntoDataDir(dir: string, storage: OfflineStorage, file: string, onRecords: (recordsRead: number) => void): Promise<ImportResult> {
  // The server's own checks and gates, without listening: the records go in as a running server would take them.
  const loom = await createReferenceLoom({ dataDir: dir, storage, logger: jsonLogger({ level: 'warn', write: (line) => process.stderr.write(line) }), fleet: { heartbeat: false } }).catch((error: unknown) => inUse(error, dir));
  await loom.initialize().catch(async (error: unknown) => {
    await loom.stop().catch(() => {});
    inUse(error, dir);
  });
  try {
    const portability = resolve(loom.container, PortabilityToken);
    const importer = new LogImporter(portability.ingestor, SYSTEM, portability.isSystemThread, ({ records_read }) => onRecords(records_read));
    return await importLines(createInterface({ input: createReadStream(file), crlfDelay: Infinity }), importer);
  } finally {
    await loom.stop();
  }
}

/** The watermark of a restored log: opened once, so a damaged copy fails here. */
export async function restoredWatermark(backend: OfflineStorage, dir: string): Promise<number> {
  const store = openReferenceStore(backend, dir, 'full', {});
  await store.open();
  const watermark = await store.watermark();
  await store.close();
  return watermark;
}

/** Restores a PostgreSQL backup's dump (`store/` of the archive, unpacked at `storeDir`) into a database: its head. */
export async function restorePostgres(storeDir: string, connectionString: string): Promise<{ schema: string; watermark: number }> {
  const { restorePostgresDump } = await import('../../storage/postgres/pg-tools.js');
  const described = JSON.parse(await readFile(join(storeDir, 'postgres.json'), 'utf8')) as { schema: string; dump: string };
  return { schema: described.schema, watermark: await restorePostgresDump(join(storeDir, described.dump), connectionString, described.schema) };
}
