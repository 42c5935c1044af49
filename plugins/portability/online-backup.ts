/**
 * An online backup of a running server, as one `.tar.gz`:
 *
 *   loom-backup.json   manifest: version, instance, backend, the log's watermark and record count
 *   store/             the log: the driver's consistent copy (RecordStore.backup)
 *   data/<path>        plugin state that is not derived from the log (core/plugin/backup-state.ts)
 *
 * Everything else in the data directory is derived (folds, checkpoints,
 * search indexes) and is rebuilt from the log at the first start after a
 * restore. The copy is staged under `<data-dir>/backup-staging/` (the same
 * file system: plugin state is hard-linked, not copied, where it can be) and
 * removed once streamed.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, link, lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { create as createTar } from 'tar';
import type { BackupStateEntry } from '../../core/plugin/backup-state.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { PortableLog } from './portability-service.js';

export const BACKUP_FORMAT = 1;
export const BACKUP_MANIFEST = 'loom-backup.json';
export const STAGING_DIRECTORY = 'backup-staging';

export interface BackupManifest {
  readonly object: 'loom_backup';
  readonly format: typeof BACKUP_FORMAT;
  readonly loom_version: string;
  readonly instance: string;
  readonly backend: string;
  readonly created_at: string;
  /** Every record up to this sequence is in `store/`. */
  readonly watermark: number;
  readonly records: number;
  /** The driver's copy, relative to the archive's root (`store/loom.sqlite`, or `store` for LevelDB's directory). */
  readonly store_path: string;
  /** Plugin state included, relative to the data directory (and to `data/` in the archive). */
  readonly state: string[];
}

export interface BackupSource {
  readonly store: PortableLog;
  readonly dataDir: string;
  readonly state: readonly BackupStateEntry[];
  readonly loomVersion: string;
  readonly instance: string;
}

/** An entry deleted after it was listed (the data plane's blob collector) is simply not in the backup. */
const vanished = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'ENOENT') throw error;
};

/** Hard-links a file or a directory tree into place (copies across file systems). */
async function linkTree(source: string, target: string): Promise<void> {
  const stats = await lstat(source).catch(vanished);
  if (!stats) return;
  if (stats.isDirectory()) {
    await mkdir(target, { recursive: true });
    for (const name of await readdir(source)) await linkTree(join(source, name), join(target, name));
  } else if (stats.isFile()) {
    await mkdir(dirname(target), { recursive: true });
    await link(source, target).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code === 'EXDEV' || error.code === 'EPERM') await copyFile(source, target).catch(vanished);
      else vanished(error);
    });
  }
}

/** Takes the backup into a staging directory of its own; the caller streams it and removes it. */
export async function stageBackup(source: BackupSource): Promise<{ directory: string; manifest: BackupManifest }> {
  if (!source.store.capabilities.onlineBackup || !source.store.backup) {
    throw new LoomError('BACKUP_NOT_SUPPORTED', `the ${source.store.capabilities.backend} store takes no online backup here: use the database's own tools (pg_dump for PostgreSQL), or loom export`);
  }
  const directory = join(source.dataDir, STAGING_DIRECTORY, `${Date.now()}-${randomBytes(4).toString('hex')}`);
  await mkdir(join(directory, 'store'), { recursive: true });
  try {
    const copy = await source.store.backup(join(directory, 'store'));
    const state: string[] = [];
    for (const entry of source.state) {
      const from = join(source.dataDir, entry.path);
      const exists = await lstat(from).then(
        () => true,
        () => false,
      );
      if (!exists) continue;
      await linkTree(from, join(directory, 'data', entry.path));
      state.push(entry.path);
    }
    const manifest: BackupManifest = {
      object: 'loom_backup',
      format: BACKUP_FORMAT,
      loom_version: source.loomVersion,
      instance: source.instance,
      backend: source.store.capabilities.backend,
      created_at: new Date().toISOString(),
      watermark: copy.watermark,
      records: copy.records,
      store_path: copy.path === '.' ? 'store' : `store/${copy.path}`,
      state,
    };
    await writeFile(join(directory, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    return { directory, manifest };
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

/** The staged backup as a gzipped tar stream (manifest first, so a reader learns what follows before the bytes). */
export async function backupArchive(directory: string): Promise<Readable> {
  const entries = [BACKUP_MANIFEST, 'store'];
  if (await lstat(join(directory, 'data')).then(() => true, () => false)) entries.push('data');
  // node-tar streams are Minipass streams; Hapi replies with a Node Readable.
  return Readable.from(createTar({ gzip: true, cwd: directory, portable: true }, entries), { objectMode: false });
}

/** Removes staging directories a crash left behind. */
export function removeStaleStaging(dataDir: string): Promise<void> {
  return rm(join(dataDir, STAGING_DIRECTORY), { recursive: true, force: true });
}
