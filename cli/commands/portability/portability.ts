/**
 * `loom export`, `loom import`, `loom backup`, `loom restore`.
 *
 * export/import move the log as a portable NDJSON file (plugins/portability/
 * export-format.ts): from a running server (GET /v1/log/export, admin) or
 * straight from a stopped server's data directory (--data-dir), into a
 * running server (POST /v1/log/import) or a stopped server's data directory,
 * on any driver: `loom export --data-dir a --storage sqlite -o log.ndjson`
 * then `loom import log.ndjson --data-dir b --storage level` moves a log
 * from SQLite to LevelDB. An import checks the file's end line first, so a
 * damaged or cut-short file stores nothing.
 *
 * backup/restore: `loom backup` streams a running server's online backup
 * (POST /v1/backup) to a .tar.gz; `loom restore` unpacks one into an empty
 * data directory for `loom serve` to start on.
 *
 * Progress goes to stderr on a terminal; --json prints one JSON result on stdout.
 */
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { access, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { defineCommand, type OptionValues } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, type ClientContext } from '../../kit/context.js';
import { integerOption } from '../../kit/options.js';
import { byteProgress, formatBytes, transferProgress } from '../../kit/progress.js';
import { streamDownload } from '../../kit/stream-download.js';
import { localStore, type LocalImportResult } from '../../kit/local-store.js';

export const PORTABILITY_USAGE = `loom export [-o <file>] [--thread <th_…>] [--actor <did>] [--namespace <ns>] [--after <seq>] [--until <seq>] [--url …] [--token …] [--json]
loom export --data-dir <dir> [--storage sqlite|level] [-o <file>] [filters]
  The log (or one thread, actor, namespace, sequence range) as a portable NDJSON file (admin).
  -o: default loom-export-<date>.ndjson; "-" writes to stdout. --data-dir reads a stopped server's log.
loom import <file> [--url …] [--token …] [--json]
loom import <file> --data-dir <dir> [--storage sqlite|level]
  Checks the file's end line, then ingests its records (admin); importing twice stores nothing new.
  --data-dir imports into a stopped server's data directory (created when missing), on any driver.
loom backup [-o <file>] [--url …] [--token …] [--json]
  An online backup of the running server (admin), default loom-backup-<date>.tar.gz.
loom restore <backup.tar.gz> --data-dir <dir> [--database-url postgres://…] [--json]
  Unpacks a backup into an empty data directory; then: loom serve --data-dir <dir> --storage <its driver>.
  A PostgreSQL server's backup goes into --database-url (or LOOM_DATABASE_URL) under the schema it was taken
  from, which that database must not hold yet (pg_restore, from Debian's postgresql-client).`;

const OPTIONS = {
  ...CLIENT_OPTIONS,
  output: { type: 'string', short: 'o' },
  thread: { type: 'string' },
  actor: { type: 'string' },
  namespace: { type: 'string' },
  after: { type: 'string' },
  until: { type: 'string' },
  'data-dir': { type: 'string' },
  storage: { type: 'string' },
} as const;

type Values = OptionValues<typeof OPTIONS>;

const RESTORE_OPTIONS = { ...OPTIONS, 'database-url': { type: 'string' } } as const;

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-').replace(/-\d{3}Z$/, 'Z');

function offlineStorage(values: Values): 'sqlite' | 'level' {
  const storage = values.storage ?? process.env['LOOM_STORAGE'] ?? 'sqlite';
  if (storage !== 'sqlite' && storage !== 'level') throw new CliError(`--storage must be sqlite or level with --data-dir (PostgreSQL: export from a running server with --url)`);
  return storage;
}

/** Counts lines and bytes passing through (for progress and the summary). */
function counting(onChunk: (bytes: number, lines: number) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let lines = 0;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
      onChunk(chunk.length, lines);
      done(null, chunk);
    },
  });
}

function recordLineProgress(label: string): { update(bytes: number, lines: number): void; finish(): void } {
  if (!process.stderr.isTTY) return { update() {}, finish() {} };
  let bytes = 0;
  let lines = 0;
  let drawn = 0;
  // Lines of an export are its records plus the header (and at the end the end line).
  const draw = () => process.stderr.write(`\r${label}  ${Math.max(0, lines - 1)} records  ${formatBytes(bytes)}\x1b[K`);
  return {
    update(moreBytes, moreLines) {
      bytes += moreBytes;
      lines += moreLines;
      if (Date.now() - drawn >= 100) {
        drawn = Date.now();
        draw();
      }
    },
    finish() {
      draw();
      process.stderr.write('\n');
    },
  };
}

/** The end line of a written export, for the summary. */
async function trailerOf(file: string): Promise<{ records: number; last_sequence: number | null; sha256: string } | null> {
  const size = (await stat(file)).size;
  const handle = createReadStream(file, { start: Math.max(0, size - 4096), encoding: 'utf8' });
  let tail = '';
  for await (const chunk of handle) tail += chunk as string;
  const last = tail.trimEnd().split('\n').pop() ?? '';
  try {
    const parsed = JSON.parse(last) as { object?: string; records: number; last_sequence: number | null; sha256: string };
    return parsed.object === 'loom_export_end' ? parsed : null;
  } catch {
    return null;
  }
}

function scopeQuery(values: Values): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of ['thread', 'actor', 'namespace'] as const) if (values[name] !== undefined) query[name] = values[name]!;
  for (const name of ['after', 'until'] as const) {
    const value = integerOption(name, values[name]);
    if (value !== undefined) query[name] = String(value);
  }
  return query;
}

async function exportOffline(values: Values, sink: NodeJS.WritableStream, onChunk: (bytes: number, lines: number) => void): Promise<void> {
  const dir = resolvePath(values['data-dir']!);
  await access(dir).catch(() => {
    throw new CliError(`no data directory at ${dir}`);
  });
  const local = await localStore();
  await local.exportFromDataDir(dir, offlineStorage(values), scopeQuery(values), counting(onChunk), sink);
}

async function exportOnline(ctx: ClientContext, values: Values, sink: NodeJS.WritableStream, onChunk: (bytes: number, lines: number) => void): Promise<void> {
  const { data } = await call(ctx, ctx.client.exportLog({ query: scopeQuery(values), parseAs: 'stream' }));
  await pipeline(Readable.fromWeb(data as unknown as NodeReadableStream<Uint8Array>), counting(onChunk), sink, { end: sink !== process.stdout });
}

export const exportCommand = defineCommand({
  name: 'export',
  summary: 'the log as a portable NDJSON file',
  usage: PORTABILITY_USAGE,
  json: true,
  // Every one takes positionals, so each refuses an extra one in its own words.
  args: [],
  options: OPTIONS,
  run: async ({ values, positionals }) => {
    if (positionals.length > 0) throw new CliError(`loom export takes no positional argument (got ${positionals.join(' ')}); the file is -o <file>\n${PORTABILITY_USAGE}`);
    const toStdout = values.output === '-';
    const file = toStdout ? null : resolvePath(values.output ?? `loom-export-${stamp()}.ndjson`);
    const partial = file ? `${file}.part` : null;
    if (file) await mkdir(dirname(file), { recursive: true });
    const sink = partial ? createWriteStream(partial) : process.stdout;
    const progress = recordLineProgress('export');
    try {
      if (values['data-dir'] !== undefined) await exportOffline(values, sink, progress.update);
      else await exportOnline(clientContext(values), values, sink, progress.update);
    } catch (error) {
      if (partial) await rm(partial, { force: true });
      throw error;
    } finally {
      progress.finish();
    }
    if (!file || !partial) return;
    // Only a complete file gets the name asked for.
    await rename(partial, file);
    const trailer = await trailerOf(file);
    const bytes = (await stat(file)).size;
    const result = { file, records: trailer?.records ?? null, last_sequence: trailer?.last_sequence ?? null, sha256: trailer?.sha256 ?? null, bytes };
    if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else process.stdout.write(`exported ${result.records} records${result.last_sequence !== null ? ` (through sequence ${result.last_sequence})` : ''} to ${file} (${formatBytes(bytes)}, sha256 ${result.sha256})\n`);
  },
});

/** What an import reports, online or into a data directory: the same summary. */
type ImportSummary = LocalImportResult;

async function importOffline(values: Values, file: string): Promise<ImportSummary> {
  const dir = resolvePath(values['data-dir']!);
  const storage = offlineStorage(values);
  const local = await localStore();
  const progress = recordLineProgress('import');
  let seen = 0;
  try {
    return await local.importIntoDataDir(dir, storage, file, (recordsRead) => {
      progress.update(0, recordsRead - seen);
      seen = recordsRead;
    });
  } finally {
    progress.finish();
  }
}

async function importOnline(ctx: ClientContext, file: string): Promise<ImportSummary> {
  const size = (await stat(file)).size;
  const progress = transferProgress('import', size);
  let sent = 0;
  const body = Readable.toWeb(
    createReadStream(file).pipe(
      new Transform({
        transform(chunk: Buffer, _encoding, done) {
          sent += chunk.length;
          progress.update(sent);
          done(null, chunk);
        },
      }),
    ),
  );
  try {
    // A streamed request body: fetch needs duplex 'half', which the generated options pass through to it.
    const { data } = await call(ctx, ctx.client.importLog({ body: body as unknown as Blob, headers: { 'content-type': 'application/x-ndjson' }, duplex: 'half' } as Parameters<typeof ctx.client.importLog>[0]));
    return data as ImportSummary;
  } finally {
    progress.finish();
  }
}

export const importCommand = defineCommand({
  name: 'import',
  summary: 'an export file into a server or a data directory',
  usage: PORTABILITY_USAGE,
  json: true,
  // Every one takes positionals, so each refuses an extra one in its own words.
  args: ['<file>'],
  options: OPTIONS,
  run: async ({ values, positionals }) => {
    if (positionals.length !== 1) throw new CliError(`give the export file to import\n${PORTABILITY_USAGE}`);
    const file = resolvePath(positionals[0]!);
    await access(file).catch(() => {
      throw new CliError(`no file at ${file}`);
    });
    // The whole file is checked before anything is sent: a damaged or cut-short file stores nothing.
    const check = await (await localStore()).checkExportFile(file);
    if (check.problem !== null) throw new CliError(`${file} is not a complete Loom export: ${check.problem}; nothing was imported`, 1);
    const result = values['data-dir'] !== undefined ? await importOffline(values, file) : await importOnline(clientContext(values), file);
    if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else {
      let text = `imported ${result.records_read} records from ${file}: ${result.records_inserted} new, ${result.records_deduplicated} already stored, ${result.records_refused} refused (checksum ${result.checksum})\n`;
      for (const refusal of result.refusals.slice(0, 10)) text += `  line ${refusal.line} ${refusal.id.slice(0, 12)}: ${refusal.code} ${refusal.message}\n`;
      process.stdout.write(text);
    }
    if (result.records_refused > 0) process.exitCode = 1;
  },
});

export const backupCommand = defineCommand({
  name: 'backup',
  summary: "a running server's online backup",
  usage: PORTABILITY_USAGE,
  json: true,
  // Every one takes positionals, so each refuses an extra one in its own words.
  args: [],
  options: OPTIONS,
  run: async ({ values, positionals }) => {
    if (positionals.length > 0) throw new CliError(`loom backup takes no positional argument; the file is -o <file>\n${PORTABILITY_USAGE}`);
    if (values['data-dir'] !== undefined) throw new CliError('loom backup copies a running server (--url); to copy a stopped server, copy its data directory');
    const ctx = clientContext(values);
    const file = resolvePath(values.output ?? `loom-backup-${stamp()}.tar.gz`);
    await mkdir(dirname(file), { recursive: true });
    const progress = byteProgress('backup');
    let answer;
    try {
      // Streamed to <file>.part and renamed when complete (cli/kit/stream-download.ts says why not through the SDK).
      answer = await streamDownload(ctx, 'POST', 'v1/backup', file, (done) => progress.update(done));
    } finally {
      progress.finish();
    }
    const watermark = Number(answer.headers['x-loom-backup-watermark']);
    const bytes = answer.bytes;
    const result = { file, watermark, bytes };
    if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
    else process.stdout.write(`backup of ${ctx.url} through sequence ${watermark} written to ${file} (${formatBytes(bytes)})\n`);
  },
});

/** Where the reference server keeps each driver's log in its data directory (reference-loom.ts). */
const STORE_PLACE: Record<string, string> = { sqlite: 'loom.sqlite', level: 'level' };

export const restoreCommand = defineCommand({
  name: 'restore',
  summary: 'a backup into an empty data directory',
  usage: PORTABILITY_USAGE,
  json: true,
  // Every one takes positionals, so each refuses an extra one in its own words.
  args: ['<backup.tar.gz>'],
  options: RESTORE_OPTIONS,
  run: async ({ values, positionals }) => {
    if (positionals.length !== 1 || values['data-dir'] === undefined) throw new CliError(`give the backup file and --data-dir\n${PORTABILITY_USAGE}`);
    const databaseUrl = values['database-url'] ?? process.env['LOOM_DATABASE_URL'];
    const archive = resolvePath(positionals[0]!);
    const dir = resolvePath(values['data-dir']);
    await access(archive).catch(() => {
      throw new CliError(`no file at ${archive}`);
    });
    const existing = await readdir(dir).catch(() => [] as string[]);
    const kept = existing.filter((name) => name !== 'lost+found');
    if (kept.length > 0) throw new CliError(`${dir} is not empty (${kept.slice(0, 3).join(', ')}${kept.length > 3 ? ', …' : ''}): restore into an empty directory, or move this one aside first`);
    const [{ extract }, local] = await Promise.all([import('tar'), localStore()]);
    const { backupManifest: BACKUP_MANIFEST, backupFormat: BACKUP_FORMAT } = local;
    await mkdir(dir, { recursive: true });
    const staging = join(dir, '.restore');
    await mkdir(staging);
    try {
      try {
        await extract({ file: archive, cwd: staging, strict: true });
      } catch (error) {
        throw new CliError(`${archive} is not a Loom backup archive (${(error as Error).message})`, 1);
      }
      const manifest = await readFile(join(staging, BACKUP_MANIFEST), 'utf8').then(
        (text) => JSON.parse(text) as { object?: string; format?: number; backend: string; store_path: string; watermark: number; records: number; state: string[]; instance: string; created_at: string },
        () => null,
      );
      if (manifest?.object !== 'loom_backup') throw new CliError(`${archive} holds no ${BACKUP_MANIFEST}: not a Loom backup`, 1);
      if (manifest.format !== BACKUP_FORMAT) throw new CliError(`${archive} is backup format ${manifest.format}; this loom reads format ${BACKUP_FORMAT}`, 1);
      const postgres = manifest.backend === 'postgres';
      const place = STORE_PLACE[manifest.backend];
      if (!place && !postgres) throw new CliError(`${archive} holds a ${manifest.backend} log, which loom restore cannot place`, 1);
      if (postgres && !databaseUrl) throw new CliError(`${archive} is a PostgreSQL server's backup: give the database to restore it into with --database-url (or LOOM_DATABASE_URL)`);
      let schema: string | null = null;
      let watermark: number;
      if (postgres) {
        try {
          ({ schema, watermark } = await local.restorePostgres(join(staging, manifest.store_path), databaseUrl!));
        } catch (error) {
          throw new CliError(`the PostgreSQL restore failed: ${(error as Error).message}`, 1);
        }
      } else await rename(join(staging, manifest.store_path), join(dir, place!));
      for (const path of manifest.state) {
        await mkdir(dirname(join(dir, path)), { recursive: true });
        await rename(join(staging, 'data', path), join(dir, path));
      }
      // Opened once: the copy must be a whole log holding what the manifest says.
      if (!postgres) watermark = await local.restoredWatermark(manifest.backend as 'sqlite' | 'level', dir);
      if (watermark! !== manifest.watermark) throw new CliError(`the restored log ends at sequence ${watermark!}, not at the backup's ${manifest.watermark}: the archive is damaged`, 1);
      const result = { data_dir: dir, backend: manifest.backend, watermark: watermark!, records: manifest.records, instance: manifest.instance, taken_at: manifest.created_at, state: manifest.state, ...(schema ? { database_schema: schema } : {}) };
      const start = postgres ? `loom serve --data-dir ${dir} --storage postgres --database-url <url> --database-schema ${schema}` : `loom serve --data-dir ${dir} --storage ${manifest.backend}`;
      if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + '\n');
      else process.stdout.write(`restored ${manifest.records} records (through sequence ${watermark!}, taken ${manifest.created_at}) into ${postgres ? `schema ${schema} of the database, plugin state into ${dir}` : dir}\nstart it with: ${start}\n`);
    } catch (error) {
      // Nothing half-restored is left to start a server on.
      for (const name of await readdir(dir).catch(() => [] as string[])) await rm(join(dir, name), { recursive: true, force: true });
      throw error;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  },
});
