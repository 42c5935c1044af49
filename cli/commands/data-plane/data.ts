/**
 * `loom data ls|stat|put|get|mv|rm|publish|url|usage|gc`: a namespace's files
 * (the data-plane routes under /v1/data and /v1/blobs). --json prints the
 * server's answer as is (for `get`, which has none, a summary object).
 *
 * `put` streams the local file as a file-backed Blob (never read whole) with
 * the SDK's resumable upload. The upload id is saved before the first chunk
 * in a state file named after what identifies the transfer (local file, its
 * size and mtime, remote path, namespace, server, precondition and content
 * type), so running the same `put` again after Ctrl-C or a network failure
 * sends only the chunks the server lacks; the file goes once the write is
 * done or definitively refused. `get` streams into `<local>.part`, continues
 * an existing .part with a Range request (If-Range: the content hash), checks
 * the SHA-256 and only then renames it into place.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream, openAsBlob } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { defineCommand, subcommand, type OptionDecls, type OptionValues } from '../../../command/define-command.js';
import { DataTransferError, readBlobRange, uploadFile, type DataCollection, type DataNode, type DataUsage } from '../../../sdk/index.js';
import { mediaTypeOf } from '../../kit/media-type.js';
import { CliError, unreachableMessage } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { integerOption, shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import { formatBytes, transferProgress, type TransferProgress } from '../../kit/progress.js';

export const DATA_USAGE = `loom data ls [<path>] [--limit N] [--cursor <c>]
loom data stat <path>
loom data put <local-file> <remote-path> [--content-type <t>] [--if-match <hash> | --if-absent]
loom data get <remote-path> [<local-file> | -]
loom data mv <from> <to>
loom data rm <path> [-r|--recursive]
loom data publish <path> [--storage-class <c>]
loom data url <path> [--expires-in <seconds>]
loom data usage
loom data gc [--grace <seconds>]
  Files in a namespace's tree; each takes [--namespace <ns>] (not gc) [--url …] [--token …] [--json].
  put uploads in chunks; after an interruption, run the same put again and only the missing chunks
  are sent (the upload id is kept in $XDG_STATE_HOME/loom/uploads, default ~/.local/state/loom/uploads,
  until the write ends). --if-absent writes only a new file, --if-match only over that content hash.
  A remote path ending in / takes the local file's name. get writes <local-file>.part, continues an
  existing one, checks the SHA-256, then renames it into place; - writes to stdout. Progress shows on
  stderr when it is a terminal. url: a signed link anyone may read until it expires (or until no file
  holds its content). usage shows, to an admin, the server's live and reclaimable bytes: content no file
  holds is deleted once unreferenced for the grace period (default 24 h); gc collects it now
  (--grace 0: everything unreferenced, admin only).`;

/** Positional arguments per subcommand: [at least, at most]. */
const ARITY = { ls: [0, 1], stat: [1, 1], put: [2, 2], get: [1, 2], mv: [2, 2], rm: [1, 1], publish: [1, 1], url: [1, 1], usage: [0, 0], gc: [0, 0] } as const;
type Sub = keyof typeof ARITY;


/** The options every subcommand takes. */
const SHARED = { ...CLIENT_OPTIONS, namespace: { type: 'string', value: 'ns', help: "the namespace's tree" } } as const;

/** Each subcommand's own options, and its arguments as --help shows them. */
const OWN = {
  ls: { args: ['[<path>]'], options: { limit: { type: 'string', value: 'N', help: 'entries per page' }, cursor: { type: 'string', value: 'c', help: 'the page after this cursor' } } },
  stat: { args: ['<path>'], options: {} },
  put: {
    args: ['<local-file>', '<remote-path>'],
    options: {
      'content-type': { type: 'string', value: 't', help: "the file's media type (default: from its extension)" },
      'if-match': { type: 'string', value: 'hash', help: 'write only over this content hash' },
      'if-absent': { type: 'boolean', default: false, help: 'write only a new file' },
    },
  },
  get: { args: ['<remote-path>', '[<local-file> | -]'], options: {} },
  mv: { args: ['<from>', '<to>'], options: {} },
  rm: { args: ['<path>'], options: { recursive: { type: 'boolean', short: 'r', default: false, help: 'a folder and everything under it' } } },
  publish: { args: ['<path>'], options: { 'storage-class': { type: 'string', value: 'c', help: 'the storage class' } } },
  url: { args: ['<path>'], options: { 'expires-in': { type: 'string', value: 'seconds', help: 'how long the link works' } } },
  usage: { args: [], options: {} },
  gc: { args: [], options: { grace: { type: 'string', value: 'seconds', help: 'collect content unreferenced at least this long (default: the server\'s grace; 0: all of it)' } } },
} as const satisfies Record<Sub, { args: readonly string[]; options: OptionDecls }>;

const SUMMARIES: Record<Sub, string> = {
  ls: 'a folder, a page at a time',
  stat: "one file's or folder's metadata",
  put: 'uploads a file in chunks; run it again after an interruption and only the missing chunks are sent',
  get: 'downloads a file, continuing a .part file and checking its SHA-256 (- writes to stdout)',
  mv: 'moves or renames',
  rm: 'removes a file (or a folder with -r)',
  publish: 'publishes a file',
  url: 'a signed link anyone may read until it expires',
  usage: "the namespace's usage (and, for an admin, the server's live and reclaimable bytes)",
  gc: 'deletes content no file holds any more, now (admin)',
};

type Values = OptionValues<typeof SHARED & typeof OWN.ls.options & typeof OWN.put.options & typeof OWN.rm.options & typeof OWN.publish.options & typeof OWN.url.options & typeof OWN.gc.options>;

/** A DataTransferError as the one-line CliError every client command prints. */
function transferFailure(ctx: ClientContext, error: unknown): never {
  if (!(error instanceof DataTransferError)) throw error;
  if (error.code === 'NETWORK_ERROR') {
    throw new CliError(unreachableMessage(ctx.url, error.cause ?? error), 1, 'UNREACHABLE');
  }
  const source = error.status === 401 && ctx.tokenSource ? ` [token from ${ctx.tokenSource}]` : '';
  throw new CliError(`${error.code} (${error.status}): ${error.message}${source}`, 1, error.code, error.status);
}

// ---- put ----

/** $XDG_STATE_HOME/loom/uploads (only an absolute XDG_STATE_HOME counts), else ~/.local/state/loom/uploads. */
function uploadStateDir(): string {
  const xdg = process.env['XDG_STATE_HOME'];
  return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.local', 'state'), 'loom', 'uploads');
}

interface UploadState {
  readonly upload_id: string;
  readonly key: readonly unknown[];
  readonly saved_at: string;
}

async function readUploadState(file: string, key: readonly unknown[]): Promise<UploadState | null> {
  try {
    const state = JSON.parse(await readFile(file, 'utf8')) as UploadState;
    // A hash collision, or a file edited by hand, must not resume someone else's upload.
    return typeof state.upload_id === 'string' && JSON.stringify(state.key) === JSON.stringify(key) ? state : null;
  } catch {
    return null;
  }
}

/** Written owner-only and atomically (temporary file, then rename): a torn state file would only lose the resume. */
async function writeUploadState(file: string, state: UploadState): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  await rename(temporary, file);
}

/**
 * A refusal after which the upload is gone or unusable: keeping its id would
 * only make the next run ask for it in vain. Refused credentials (401, 403)
 * are not about the upload: with the right token it can still be resumed.
 */
const endsUpload = (error: unknown) =>
  error instanceof DataTransferError && (error.code === 'UPLOAD_MISMATCH' || (error.status >= 400 && error.status < 500 && ![401, 403, 408, 429].includes(error.status)));

async function put(ctx: ClientContext, values: Values, [local, remoteArgument]: string[]): Promise<void> {
  if (values['if-match'] !== undefined && values['if-absent']) throw new CliError('--if-match and --if-absent exclude each other');
  const ifMatch = values['if-match'];
  if (ifMatch !== undefined && !/^[0-9a-f]{64}$/.test(ifMatch)) throw new CliError(`--if-match must be a SHA-256 content hash (64 lowercase hex digits), not ${JSON.stringify(ifMatch)}`);
  const file = resolve(local!);
  const info = await stat(file).catch((error: Error) => {
    throw new CliError(`cannot read ${local}: ${error.message}`, 1);
  });
  if (!info.isFile()) throw new CliError(`${local} is not a regular file`, 1);
  const remote = remoteArgument!.endsWith('/') ? remoteArgument + basename(file) : remoteArgument!;
  const precondition = ifMatch !== undefined ? { expected_hash: ifMatch } : values['if-absent'] ? { expected_hash: null } : undefined;
  const namespace = values.namespace;
  // Inferred from the remote name's extension (else the local one's) when not given; none when unknown.
  const contentType = values['content-type'] ?? mediaTypeOf(remoteArgument!.endsWith('/') ? file : remoteArgument!) ?? mediaTypeOf(file) ?? undefined;

  const key = [file, info.size, info.mtimeMs, remote, namespace ?? null, ctx.url, precondition?.expected_hash ?? 'any', contentType ?? null];
  const stateFile = join(uploadStateDir(), createHash('sha256').update(JSON.stringify(key)).digest('hex').slice(0, 32) + '.json');
  const saved = await readUploadState(stateFile, key);
  let progress: TransferProgress | undefined;
  const interrupted = () => {
    progress?.finish();
    process.stderr.write('loom: interrupted; run the same command again to resume the upload\n');
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    const result = await uploadFile(ctx.client, {
      path: remote,
      content: await openAsBlob(file),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(contentType !== undefined ? { contentType } : {}),
      ...(precondition !== undefined ? { precondition } : {}),
      ...(saved ? { resumeUploadId: saved.upload_id } : {}),
      onUpload: async (status) => {
        if (status.upload_id !== saved?.upload_id) await writeUploadState(stateFile, { upload_id: status.upload_id, key, saved_at: new Date().toISOString() });
        progress = transferProgress(`put ${remote}`, info.size, status.received_bytes);
      },
      onProgress: ({ sentBytes }) => progress?.update(sentBytes),
    });
    progress?.finish();
    await rm(stateFile, { force: true });
    const { answer } = result;
    const resumed = result.resumed ? `; resumed upload ${result.uploadId}, sent ${formatBytes(result.transferredBytes)}` : '';
    print(ctx, answer, () => `wrote ${answer.path} (${answer.size_bytes} bytes, sha256 ${answer.content_hash})${answer.deduplicated ? ', content already stored' : ''}${resumed}\n`);
  } catch (error) {
    progress?.finish();
    if (endsUpload(error)) await rm(stateFile, { force: true });
    transferFailure(ctx, error);
  } finally {
    process.off('SIGINT', interrupted);
  }
}

// ---- get ----

/** Passes bytes through, feeding the hash and the progress line (which starts at `done`). */
function hashing(hasher: Hash, progress: TransferProgress, done: number): Transform {
  return new Transform({
    transform(bytes: Buffer, _encoding, next) {
      hasher.update(bytes);
      progress.update((done += bytes.length));
      next(null, bytes);
    },
  });
}

/** Streams content `hash` into `part` (continuing what it holds) and answers the SHA-256 of the whole file. */
async function fillPart(ctx: ClientContext, node: DataNode, hash: string, part: string): Promise<{ digest: string; continuedFrom: number }> {
  const size = node.size_bytes;
  let offset = (await stat(part).catch(() => null))?.size ?? 0;
  if (offset > size) offset = 0;
  let hasher = createHash('sha256');
  if (offset > 0) for await (const bytes of createReadStream(part, { start: 0, end: offset - 1 })) hasher.update(bytes as Buffer);
  if (offset === size) {
    if (size === 0) await writeFile(part, '');
    return { digest: hasher.digest('hex'), continuedFrom: offset };
  }
  const range = await readBlobRange(ctx.client, hash, { start: offset, ifRange: hash }).catch((error: unknown) => transferFailure(ctx, error));
  if (range.start !== offset) {
    // The server sent the whole content (If-Range no longer matched): start over.
    offset = 0;
    hasher = createHash('sha256');
  }
  const progress = transferProgress(`get ${node.path}`, size, offset);
  try {
    await pipeline(Readable.fromWeb(range.body as NodeReadableStream<Uint8Array>), hashing(hasher, progress, offset), createWriteStream(part, { flags: offset > 0 ? 'a' : 'w' }));
  } catch (error) {
    throw new CliError(`the download of ${node.path} was cut short (${(error as Error).message}): run the same command again to continue from ${part}`, 1);
  } finally {
    progress.finish();
  }
  return { digest: hasher.digest('hex'), continuedFrom: offset };
}

async function toStdout(ctx: ClientContext, node: DataNode, hash: string): Promise<void> {
  const range = await readBlobRange(ctx.client, hash).catch((error: unknown) => transferFailure(ctx, error));
  const hasher = createHash('sha256');
  const progress = transferProgress(`get ${node.path}`, node.size_bytes);
  try {
    await pipeline(Readable.fromWeb(range.body as NodeReadableStream<Uint8Array>), hashing(hasher, progress, 0), process.stdout, { end: false });
  } catch (error) {
    // The reader went away (`| head`): what it wanted, it has.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    throw new CliError(`the download of ${node.path} was cut short (${(error as Error).message})`, 1);
  } finally {
    progress.finish();
  }
  const digest = hasher.digest('hex');
  if (digest !== hash) throw new CliError(`the bytes received hash to ${digest}, not ${hash}: what was written to stdout is not the file`, 1);
}

async function get(ctx: ClientContext, values: Values, [remote, target]: string[]): Promise<void> {
  const { data: node } = await call(ctx, ctx.client.statDataNode({ query: { path: remote!, ...(values.namespace !== undefined ? { namespace: values.namespace } : {}) } }));
  if (node.kind !== 'file' || node.content_hash === null) throw new CliError(`${node.path} is a directory: get copies one file`, 1);
  const hash = node.content_hash;
  if (target === '-') return toStdout(ctx, node, hash);
  let local = resolve(target ?? node.name);
  if (target?.endsWith('/') || (await stat(local).catch(() => null))?.isDirectory()) local = join(local, node.name);
  const part = `${local}.part`;
  let filled = await fillPart(ctx, node, hash, part);
  if (filled.digest !== hash && filled.continuedFrom > 0) {
    // The .part held other bytes (an older version of the file): fetch it whole once.
    await rm(part, { force: true });
    filled = await fillPart(ctx, node, hash, part);
  }
  if (filled.digest !== hash) {
    await rm(part, { force: true });
    throw new CliError(`the bytes received hash to ${filled.digest}, not ${hash}: nothing was written`, 1);
  }
  await rename(part, local);
  const summary = { object: 'data_download', namespace: node.namespace, path: node.path, local, content_hash: hash, size_bytes: node.size_bytes, continued_from: filled.continuedFrom };
  const continued = filled.continuedFrom > 0 ? `; continued from byte ${filled.continuedFrom} of ${part}` : '';
  print(ctx, summary, () => `wrote ${local} (${node.size_bytes} bytes, sha256 ${hash})${continued}\n`);
}

// ---- the metadata commands ----

function listText(data: { path: string; entries: DataNode[]; cursor: string | null; has_more: boolean }): string {
  if (data.entries.length === 0) return `${data.path} is empty\n`;
  const rows = data.entries.map((n) => [
    n.kind === 'directory' ? 'dir' : 'file',
    n.kind === 'directory' ? '-' : String(n.size_bytes),
    n.modified_at ?? '-',
    n.content_hash ? shortId(n.content_hash) : '-',
    n.pin_state === 'pinned' ? (n.storage_class ?? 'pinned') : '-',
    n.kind === 'directory' ? `${n.name}/` : n.name,
  ]);
  const more = data.has_more && data.cursor !== null ? `… more: --cursor ${data.cursor}\n` : '';
  return textTable(['kind', 'size', 'modified', 'sha256', 'published', 'name'], rows) + more;
}

/** A byte count, with its binary-unit form when that is shorter to read. */
const sizeText = (n: number) => (n < 1024 ? `${n} bytes` : `${n} bytes (${formatBytes(n)})`);

function fieldsText(fields: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...fields.map(([label]) => label.length));
  return fields.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n') + '\n';
}

function statText(n: DataNode): string {
  const p = n.provenance;
  return fieldsText([
    ['path', n.path],
    ['namespace', n.namespace],
    ['kind', n.kind],
    ...(n.kind === 'file'
      ? ([
          ['size', sizeText(n.size_bytes)],
          ['sha256', n.content_hash ?? '-'],
          ['content type', n.content_type ?? '-'],
          ['published', n.pin_state === 'pinned' ? `yes (${n.storage_class ?? 'durable'})` : 'no'],
          ['version', String(n.version)],
        ] as const)
      : []),
    ['created', n.created_at ?? '-'],
    ['modified', n.modified_at ?? '-'],
    ['record', n.record_id || '-'],
    ...(p ? ([['written by', `${p.actor} (clock ${p.clock})${p.work_thread ? ` for ${p.work_thread}` : ''}${p.goal_summary ? `: ${p.goal_summary}` : ''}`]] as const) : []),
  ]);
}

function usageText(u: DataUsage): string {
  return fieldsText([
    ['namespace', u.namespace],
    ['used', sizeText(u.used_bytes)],
    ['quota', u.quota_bytes === null ? 'unlimited' : sizeText(u.quota_bytes)],
    ['available', u.available_bytes === null ? 'unlimited' : sizeText(u.available_bytes)],
    ['logical', sizeText(u.logical_bytes)],
    ['files', String(u.files)],
    ['directories', String(u.directories)],
    ['open uploads', `${u.uploads.open} (${sizeText(u.uploads.reserved_bytes)} reserved)`],
    ...(u.blob_store ? blobStoreFields(u.blob_store) : []),
  ]);
}

/** The whole blob store (admin callers; this server's, or on PostgreSQL the one every server shares): what files hold, what is left to collect and when. */
function blobStoreFields(b: NonNullable<DataUsage['blob_store']>): Array<[string, string]> {
  const last = b.last_collection;
  return [
    [b.scope === 'shared' ? 'servers share' : 'server stores', `${sizeText(b.stored_bytes)} in ${b.blobs} blob${b.blobs === 1 ? '' : 's'}, all namespaces`],
    ['live', sizeText(b.live_bytes)],
    ['reclaimable', `${sizeText(b.reclaimable_bytes)} in ${b.reclaimable_blobs} blob${b.reclaimable_blobs === 1 ? '' : 's'} (freed once unreferenced for ${durationText(b.grace_seconds)}; now: loom data gc --grace 0)`],
    ['last collection', last ? `${last.at}: ${last.collected_blobs} blob${last.collected_blobs === 1 ? '' : 's'}, ${sizeText(last.freed_bytes)} freed` : 'none yet'],
  ];
}

const durationText = (seconds: number) => (seconds % 3600 === 0 && seconds > 0 ? `${seconds / 3600} h` : `${seconds} s`);

function collectionText(c: DataCollection): string {
  return fieldsText([
    ['collected', `${c.collected_blobs} blob${c.collected_blobs === 1 ? '' : 's'}, ${sizeText(c.freed_bytes)} freed`],
    ['grace', durationText(c.grace_seconds)],
    ['kept', `${c.kept.live} live, ${c.kept.within_grace} within the grace, ${c.kept.held} held by completing uploads`],
    ['reclaimable', sizeText(c.reclaimable_bytes)],
  ]);
}

async function metadata(ctx: ClientContext, sub: Exclude<Sub, 'put' | 'get'>, values: Values, args: string[]): Promise<void> {
  const namespace = values.namespace !== undefined ? { namespace: values.namespace } : {};
  const [first, second] = args as [string, string];
  switch (sub) {
    case 'ls': {
      const query = { path: first ?? '/', ...namespace, ...(values.limit !== undefined ? { limit: integerOption('limit', values.limit, 1) } : {}), ...(values.cursor !== undefined ? { cursor: values.cursor } : {}) };
      const { data } = await call(ctx, ctx.client.listDataDirectory({ query }));
      return print(ctx, data, () => listText(data));
    }
    case 'stat': {
      const { data } = await call(ctx, ctx.client.statDataNode({ query: { path: first, ...namespace } }));
      return print(ctx, data, () => statText(data));
    }
    case 'mv': {
      const { data } = await call(ctx, ctx.client.moveDataNode({ body: { from: first, to: second, ...namespace } }));
      return print(ctx, data, () => (data.changed ? `moved ${first} to ${second}\n` : `${first} is already ${second}: nothing moved\n`));
    }
    case 'rm': {
      const { data } = await call(ctx, ctx.client.removeDataNode({ body: { path: first, recursive: values.recursive === true, ...namespace } }));
      const removed = typeof data['removed'] === 'number' ? data['removed'] : 1;
      return print(ctx, data, () => `removed ${first}${removed > 1 ? ` (${removed} nodes)` : ''}\n`);
    }
    case 'publish': {
      const body = { path: first, ...namespace, ...(values['storage-class'] !== undefined ? { storage_class: values['storage-class'] } : {}) };
      const { data } = await call(ctx, ctx.client.publishDataFile({ body }));
      return print(ctx, data, () => (data.changed ? `published ${first}\n` : `${first} was already published\n`));
    }
    case 'url': {
      const body = { path: first, ...namespace, ...(values['expires-in'] !== undefined ? { expires_in: integerOption('expires-in', values['expires-in'], 1) } : {}) };
      const { data } = await call(ctx, ctx.client.createDataReadUrl({ body }));
      // The URL alone on stdout, so that curl "$(loom data url …)" works; when it expires goes to stderr.
      if (!ctx.json) process.stderr.write(`expires ${data.expires_at} (in ${data.expires_in} s)\n`);
      return print(ctx, data, () => `${data.blob_url}\n`);
    }
    case 'usage': {
      const { data } = await call(ctx, ctx.client.getDataUsage({ query: namespace }));
      return print(ctx, data, () => usageText(data));
    }
    case 'gc': {
      const grace = integerOption('grace', values.grace, 0);
      const { data } = await call(ctx, ctx.client.collectDataBlobs({ body: grace === undefined ? {} : { grace_seconds: grace } }));
      return print(ctx, data, () => collectionText(data));
    }
  }
}

async function run(name: Sub, values: Values, positionals: readonly string[]): Promise<void> {
  const [least, most] = ARITY[name];
  if (positionals.length < least || positionals.length > most) {
    const wanted = least === most ? `${least}` : `${least} to ${most}`;
    throw new CliError(`loom data ${name} takes ${wanted} argument${most === 1 ? '' : 's'}, not ${positionals.length}\n${DATA_USAGE}`);
  }
  // The collector works on the server's whole blob store, every namespace together.
  if (name === 'gc' && values.namespace !== undefined) throw new CliError(`loom data gc collects for every namespace at once: drop --namespace\n${DATA_USAGE}`);
  const ctx = clientContext(values);
  if (name === 'put') return put(ctx, values, [...positionals]);
  if (name === 'get') return get(ctx, values, [...positionals]);
  return metadata(ctx, name, values, [...positionals]);
}

export const data = defineCommand({
  name: 'data',
  summary: 'the data plane: files and blobs',
  usage: DATA_USAGE,
  json: true,
  bareIsHelp: true,
  unknownSubcommand: (sub) => `unknown subcommand "data ${sub}"\n${DATA_USAGE}`,
  subcommands: Object.fromEntries(
    (Object.keys(ARITY) as Sub[]).map((name) => [
      name,
      subcommand({ summary: SUMMARIES[name], args: OWN[name].args, options: { ...SHARED, ...OWN[name].options }, run: ({ values, positionals }) => run(name, values as Values, positionals) }),
    ]),
  ),
});
