/**
 * The data plane's service: namespaces' trees (from the `data_fs` fold, as
 * the caller may see them), changes written as node records by the caller,
 * uploads, quotas, blobs and signed URLs. Routes are thin over it.
 */
import type { Readable } from 'node:stream';
import { actingDid, SYSTEM, type Caller } from '../../core/access/caller.js';
import { grainsFor } from '../../core/access/scopes.js';
import type { Ingestor } from '../../core/engine/ingest.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import type { RecordWriter } from '../../core/engine/record-writer.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { DEFAULT_NAMESPACE, namespaceSyntaxError } from '../../core/records/namespace-path.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { makeRecord } from '../../core/records/record.js';
import type { BlobStore } from './blob-store.js';
import type { DataPlaneOptions } from './config.js';
import { parseContentRange } from './content-range.js';
import { DATA_FOLD, readChange, type DataState } from './data-fold.js';
import { isWithin, parseDataPath, ROOT } from './data-path.js';
import type { LogCriticalSection } from '../../core/engine/log-critical-section.js';
import { childrenOf, emptyTree, nodeAt, problemWith, type DataNode, type NamespaceTree } from './namespace-tree.js';
import { dataThreadId, NODE_KIND, nodeRecordBody, type NodeChange, type WriteProvenance } from './node-records.js';
import { dataQuotaTopic } from './quota-topic.js';
import { UrlSigner } from './signed-url.js';
import { chunkCount, missingChunks, rangesOf, type UploadMeta, type UploadStore } from './upload-store.js';

export const DATA_PLANE_PLUGIN = 'data-plane';

export interface DataPlaneDeps {
  readonly ingestor: Ingestor;
  readonly writer: RecordWriter;
  /** Compare-and-swap changes of one namespace run one at a time, across every server of a shared log. */
  readonly sections: LogCriticalSection;
  readonly reader: RecordReader;
  readonly config: Config;
  readonly blobs: BlobStore;
  readonly uploads: UploadStore;
  readonly options: DataPlaneOptions;
  readonly now: () => number;
}

export interface InitUpload {
  readonly path: string;
  readonly size_bytes: number;
  readonly content_type?: string;
  readonly precondition?: { readonly expected_hash: string | null };
  readonly content_hash?: string;
  readonly provenance?: WriteProvenance;
}

/** Who may continue an upload: the same principal (any of its tokens), else the same kind of caller. */
export function uploadOwner(caller: Caller): string {
  if (caller.principal) return `principal:${caller.principal}`;
  if (caller.credential) return `credential:${caller.credential}`;
  return caller.kind;
}

const CONTENT_TYPE = /^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/;

export function checkContentType(value: string, field = 'content_type'): string {
  if (value.length > 255 || !CONTENT_TYPE.test(value)) throw new LoomError('INVALID_SHAPE', `${field} ${JSON.stringify(value.slice(0, 80))} is not a media type such as text/plain; charset=utf-8`);
  return value;
}

function pathProblem(problem: { code: LoomError['code']; message: string } | null): void {
  if (problem) throw new LoomError(problem.code, problem.message);
}

export class DataPlane {
  private urlSigner: UrlSigner | null = null;

  constructor(private readonly deps: DataPlaneDeps) {}

  /** Opens the stores (dropping what a crash left half-done) and the URL signing secret (`null`: one kept in memory). */
  async open(signerFile: string | null): Promise<{ resumed: number; removed: number }> {
    await this.deps.blobs.open();
    const uploads = await this.deps.uploads.open();
    this.urlSigner = signerFile === null ? UrlSigner.ephemeral() : await UrlSigner.open(signerFile);
    return uploads;
  }

  private get signer(): UrlSigner {
    if (!this.urlSigner) throw new Error('the data plane is used before it was opened');
    return this.urlSigner;
  }

  /** Removes expired uploads; answers how many. */
  sweepUploads(): Promise<number> {
    return this.deps.uploads.sweep();
  }

  get options(): DataPlaneOptions {
    return this.deps.options;
  }

  /** The namespace a call addresses: the one named, else the caller's only namespace grain, else `default`. */
  namespaceFor(caller: Caller, requested: string | undefined): string {
    if (requested !== undefined) {
      if (requested === DEFAULT_NAMESPACE) return requested;
      const problem = namespaceSyntaxError(requested);
      if (problem) throw new LoomError('INVALID_SHAPE', `namespace ${JSON.stringify(requested)} ${problem}`);
      return requested;
    }
    const grains = [...(grainsFor(caller.scopes, 'read') ?? []), ...(grainsFor(caller.scopes, 'write') ?? [])].filter((g) => g.kind === 'namespace');
    const namespaces = new Set(grains.map((g) => g.resource));
    return namespaces.size === 1 ? [...namespaces][0]! : DEFAULT_NAMESPACE;
  }

  // ---- who may do what ----

  /** The record a change of `namespace` by `caller` would be (a mkdir of the root: it names no path). */
  private probeInput(caller: Caller, namespace: string) {
    return {
      thread: dataThreadId(namespace),
      actor: actingDid(caller),
      act: 'KNOW',
      body: nodeRecordBody(namespace, { op: 'mkdir', path: ROOT }),
      clock: 0,
      data_type: 'SCALAR',
      parents: [],
      judged_by: null,
    };
  }

  /**
   * Refuses, as the write itself would be refused, a caller who may not
   * change `namespace`: the ingest gates run over a record that is never
   * stored. Done before anything else looks at the namespace, so a refused
   * caller learns nothing of another tenant's paths and holds none of its quota.
   */
  async checkMayWrite(caller: Caller, namespace: string): Promise<void> {
    await this.deps.ingestor.prepare({ caller, via: 'api', plugin: DATA_PLANE_PLUGIN }, this.probeInput(caller, namespace));
  }

  /** Whether `caller` may read the namespace's data thread. */
  mayRead(caller: Caller, namespace: string): boolean {
    const input = this.probeInput(caller, namespace);
    return this.deps.reader.admits(caller, { sequence: 0, createdAt: 0, record: makeRecord('0'.repeat(64), input as never) });
  }

  // ---- reading trees ----

  /** The namespace's tree as `caller` may see it (a restricted caller's fold holds only records it may read). */
  async treeFor(caller: Caller, namespace: string): Promise<{ tree: NamespaceTree; watermark: number }> {
    const { state, watermark } = await this.deps.reader.globalFoldState<DataState>(caller, DATA_FOLD);
    return { tree: state.namespaces.get(namespace) ?? emptyTree(), watermark };
  }

  /** The whole tree, for the checks writes make (under the namespace's lock). */
  private async wholeTree(namespace: string): Promise<NamespaceTree> {
    return (await this.treeFor(SYSTEM, namespace)).tree;
  }

  async stat(caller: Caller, namespace: string, path: string): Promise<DataNode> {
    const { tree } = await this.treeFor(caller, namespace);
    const node = nodeAt(tree, path);
    if (!node) throw new LoomError('PATH_NOT_FOUND', `${path} does not exist in namespace ${namespace}`);
    return node === 'root' ? rootNode() : node;
  }

  async list(caller: Caller, namespace: string, path: string, after: string | undefined, limit: number): Promise<{ entries: DataNode[]; next: string | null; watermark: number }> {
    const { tree, watermark } = await this.treeFor(caller, namespace);
    const node = nodeAt(tree, path);
    if (!node) throw new LoomError('PATH_NOT_FOUND', `${path} does not exist in namespace ${namespace}`);
    if (node !== 'root' && node.kind !== 'directory') throw new LoomError('NOT_A_DIRECTORY', `${path} is a file: stat it, or list its directory`);
    const children = childrenOf(tree, path);
    const start = after === undefined ? 0 : children.findIndex((child) => child.path > after);
    const from = start < 0 ? children.length : start;
    const entries = children.slice(from, from + limit);
    return { entries, next: from + limit < children.length ? entries[entries.length - 1]!.path : null, watermark };
  }

  /** Files whose path, content type or goal summary contain every word of `q`, newest change first. */
  async materials(caller: Caller, namespace: string, q: string | undefined, limit: number): Promise<DataNode[]> {
    const { tree } = await this.treeFor(caller, namespace);
    const words = (q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const out: DataNode[] = [];
    for (const node of tree.nodes.values()) {
      if (node.kind !== 'file') continue;
      const text = `${node.path}\n${node.content_type ?? ''}\n${node.provenance?.goal_summary ?? ''}\n${node.storage_class ?? ''}`.toLowerCase();
      if (words.every((word) => text.includes(word))) out.push(node);
    }
    return out.sort((a, b) => b.sequence - a.sequence || (a.path < b.path ? -1 : 1)).slice(0, limit);
  }

  async usage(caller: Caller, namespace: string) {
    // Open uploads and quotas are not in the caller's view of the tree: they are shown only for a namespace it may read.
    if (!this.mayRead(caller, namespace)) throw new LoomError('SCOPE_FORBIDDEN', `this credential cannot read namespace ${namespace}`);
    const { tree } = await this.treeFor(caller, namespace);
    const quota = this.quotaOf(namespace);
    const reserved = this.deps.uploads.reservedBytes(namespace);
    return {
      object: 'data_usage' as const,
      namespace,
      used_bytes: tree.stored_bytes,
      quota_bytes: quota,
      available_bytes: quota === null ? null : Math.max(0, quota - tree.stored_bytes - reserved),
      logical_bytes: tree.logical_bytes,
      files: tree.files,
      directories: tree.directories,
      uploads: { open: this.deps.uploads.openCount(namespace), reserved_bytes: reserved },
    };
  }

  quotaOf(namespace: string): number | null {
    const entry = this.deps.config.keyed(dataQuotaTopic)[namespace];
    return entry ? entry.quota_bytes : this.deps.options.defaultQuotaBytes;
  }

  /** The clock-ordered made-by feed: writes and publications of the namespace (under `path`), oldest first. */
  async provenance(caller: Caller, namespace: string, path: string, after: number, limit: number) {
    const entries: Array<Record<string, unknown>> = [];
    const answer = (next: number | null) => ({ object: 'list' as const, namespace, path, data: entries, next_cursor: next === null ? null : String(next), has_more: next !== null });
    let cursor = after;
    let pages = 0;
    for await (const { items, nextAfter } of this.deps.reader.pages(caller, dataThreadId(namespace), { after })) {
      for (const stored of items) {
        cursor = stored.sequence;
        const entry = provenanceEntry(stored, path);
        if (entry) entries.push(entry);
        if (entries.length >= limit) return answer(cursor);
      }
      if (nextAfter === null) break;
      cursor = Math.max(cursor, nextAfter);
      // Bounded work per request: a sparse match answers a cursor to continue from.
      if (++pages === 20) return answer(cursor);
    }
    return answer(null);
  }

  // ---- changes ----

  /** Checks and writes one change under the namespace's lock; `check` runs against the whole tree first. */
  private async change(caller: Caller, namespace: string, change: NodeChange, check?: (tree: NamespaceTree) => void, beforeWrite?: () => Promise<void>): Promise<StoredRecord> {
    await this.checkMayWrite(caller, namespace);
    return this.deps.sections.run(`data-plane:${namespace}`, async () => {
      const tree = await this.wholeTree(namespace);
      pathProblem(problemWith(tree, change));
      check?.(tree);
      await beforeWrite?.();
      const { stored } = await this.deps.writer.appendAs(caller, {
        thread: dataThreadId(namespace),
        act: 'KNOW',
        body: nodeRecordBody(namespace, change) as never,
        plugin: DATA_PLANE_PLUGIN,
      });
      return stored;
    });
  }

  async mkdir(caller: Caller, namespace: string, path: string): Promise<{ created: boolean; record: StoredRecord | null }> {
    await this.checkMayWrite(caller, namespace);
    const existing = nodeAt(await this.wholeTree(namespace), path);
    if (existing === 'root' || existing?.kind === 'directory') return { created: false, record: null };
    return { created: true, record: await this.change(caller, namespace, { op: 'mkdir', path }) };
  }

  async move(caller: Caller, namespace: string, from: string, to: string): Promise<StoredRecord | null> {
    if (from === to) {
      await this.checkMayWrite(caller, namespace);
      pathProblem(problemWith(await this.wholeTree(namespace), { op: 'move', from, to }));
      return null;
    }
    return this.change(caller, namespace, { op: 'move', from, to });
  }

  async remove(caller: Caller, namespace: string, path: string, recursive: boolean): Promise<{ record: StoredRecord; removed: number }> {
    let removed = 0;
    const record = await this.change(caller, namespace, { op: 'remove', path, recursive }, (tree) => {
      for (const node of tree.nodes.values()) if (isWithin(node.path, path)) removed++;
    });
    return { record, removed };
  }

  async publish(caller: Caller, namespace: string, path: string, storageClass: string): Promise<StoredRecord> {
    return this.change(caller, namespace, { op: 'publish', path, storage_class: storageClass });
  }

  // ---- uploads ----

  private checkQuota(namespace: string, tree: NamespaceTree, additional: number, exceptUpload?: string): void {
    const quota = this.quotaOf(namespace);
    if (quota === null) return;
    const reserved = this.deps.uploads.reservedBytes(namespace, exceptUpload);
    if (tree.stored_bytes + reserved + additional > quota) {
      throw new LoomError(
        'QUOTA_EXCEEDED',
        `namespace ${namespace} would hold ${tree.stored_bytes + reserved + additional} bytes, over its quota of ${quota} (${tree.stored_bytes} stored, ${reserved} in open uploads, ${additional} more): free space with loom data rm, or raise the data_quota configuration`,
        { quota_bytes: quota, used_bytes: tree.stored_bytes, reserved_bytes: reserved, requested_bytes: additional },
      );
    }
  }

  private checkPrecondition(tree: NamespaceTree, path: string, precondition: UploadMeta['precondition']): void {
    if (precondition === null) return;
    const existing = tree.nodes.get(path);
    const current = existing?.kind === 'file' ? existing.content_hash : null;
    if (current !== precondition.expected_hash) {
      const message =
        precondition.expected_hash === null
          ? `${path} already exists (content ${current}); this write was create-only`
          : current === null
            ? `${path} does not exist, but this write expected content ${precondition.expected_hash}`
            : `${path} holds content ${current}, not the expected ${precondition.expected_hash}: another writer changed it; read it again and retry`;
      throw new LoomError('PRECONDITION_FAILED', message, { expected_hash: precondition.expected_hash, current_hash: current });
    }
  }

  async initUpload(caller: Caller, namespace: string, request: InitUpload): Promise<UploadMeta> {
    const { options } = this.deps;
    if (request.size_bytes > options.maxFileBytes) throw new LoomError('PAYLOAD_TOO_LARGE', `size_bytes ${request.size_bytes} is over the largest file this instance takes (${options.maxFileBytes} bytes)`);
    const contentType = checkContentType(request.content_type ?? 'application/octet-stream');
    const precondition = request.precondition === undefined ? null : { expected_hash: request.precondition.expected_hash };
    await this.checkMayWrite(caller, namespace);
    return this.deps.sections.run(`data-plane:${namespace}`, async () => {
      const tree = await this.wholeTree(namespace);
      // Fail early (the same checks run again at completion, where they decide).
      pathProblem(problemWith(tree, { op: 'write', path: request.path, content_hash: '0'.repeat(64), size_bytes: request.size_bytes, content_type: contentType }));
      this.checkPrecondition(tree, request.path, precondition);
      this.checkQuota(namespace, tree, request.size_bytes);
      return this.deps.uploads.create({
        namespace,
        path: request.path,
        size_bytes: request.size_bytes,
        chunk_size: options.chunkSizeBytes,
        content_type: contentType,
        precondition,
        content_hash: request.content_hash ?? null,
        provenance: request.provenance ?? null,
        owner: uploadOwner(caller),
      });
    });
  }

  /** The caller's live upload; someone else's answers as unknown (no leak of its existence). */
  upload(caller: Caller, uploadId: string): UploadMeta {
    const meta = this.deps.uploads.get(uploadId);
    if (!meta || meta.owner !== uploadOwner(caller)) throw new LoomError('UPLOAD_NOT_FOUND', `no upload ${uploadId} of yours is open (unknown, completed, aborted or expired after ${this.deps.options.uploadTtlSeconds} s idle): start again with POST /v1/data/write/init`);
    return meta;
  }

  async putChunk(caller: Caller, uploadId: string, contentRange: string | undefined, body: Readable): Promise<UploadMeta> {
    const meta = this.upload(caller, uploadId);
    const range = parseContentRange(contentRange, meta.size_bytes, meta.chunk_size);
    // The quota may have shrunk, or other uploads completed, since init.
    this.checkQuota(meta.namespace, await this.wholeTree(meta.namespace), meta.size_bytes, meta.upload_id);
    return this.deps.uploads.writeChunk(meta, range, body);
  }

  async abort(caller: Caller, uploadId: string): Promise<void> {
    this.upload(caller, uploadId);
    await this.deps.uploads.remove(uploadId);
  }

  async complete(caller: Caller, uploadId: string, declaredHash: string | undefined) {
    const meta = this.upload(caller, uploadId);
    if (!(await this.deps.uploads.seal(uploadId))) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${uploadId} is already being completed`);
    try {
      return await this.completeSealed(caller, meta, declaredHash);
    } finally {
      // Still open only when the completion was refused in a way that keeps it (missing chunks, quota).
      this.deps.uploads.unseal(uploadId);
    }
  }

  private async completeSealed(caller: Caller, meta: UploadMeta, declaredHash: string | undefined) {
    const uploadId = meta.upload_id;
    const missing = missingChunks(meta);
    if (missing.length > 0) {
      const ranges = rangesOf(meta, missing);
      throw new LoomError('UPLOAD_INCOMPLETE', `${missing.length} of ${chunkCount(meta)} chunks have not arrived (first missing bytes ${ranges[0]![0]}-${ranges[0]![1]}): send them, then complete`, {
        missing_ranges: ranges,
      });
    }
    const hash = await this.deps.uploads.digest(meta);
    for (const expected of [meta.content_hash, declaredHash]) {
      if (expected !== null && expected !== undefined && expected !== hash) {
        await this.deps.uploads.remove(uploadId);
        throw new LoomError('CONTENT_HASH_MISMATCH', `the bytes received hash to ${hash}, not the declared ${expected}: the upload was discarded; upload the file again`, { expected_hash: expected, actual_hash: hash });
      }
    }
    const change: NodeChange = { op: 'write', path: meta.path, content_hash: hash, size_bytes: meta.size_bytes, content_type: meta.content_type, ...(meta.provenance ? { provenance: meta.provenance } : {}) };
    let deduplicated = false;
    let adopted = false;
    const record = await this.change(
      caller,
      meta.namespace,
      change,
      (tree) => {
        this.checkPrecondition(tree, meta.path, meta.precondition);
        const extra = tree.contents.has(hash) ? 0 : meta.size_bytes;
        const replaced = tree.nodes.get(meta.path);
        const freed = replaced?.kind === 'file' && replaced.content_hash !== hash && tree.contents.get(replaced.content_hash!)?.refs === 1 ? replaced.size_bytes : 0;
        this.checkQuota(meta.namespace, tree, extra - freed, meta.upload_id);
      },
      // The blob is in place before any record names it: a crash between the two leaves an unnamed blob, never a node without bytes.
      async () => {
        deduplicated = (await this.deps.blobs.adopt(this.deps.uploads.dataPath(uploadId), hash)) === 'deduplicated';
        adopted = true;
      },
    ).catch(async (error: unknown) => {
      // A quota refusal before the bytes moved keeps the upload, to complete once space is freed; anything else ends it.
      if (adopted || !(error instanceof LoomError) || error.code !== 'QUOTA_EXCEEDED') await this.deps.uploads.remove(uploadId);
      throw error;
    });
    await this.deps.uploads.remove(uploadId);
    return { ok: true as const, content_hash: hash, size_bytes: meta.size_bytes, namespace: meta.namespace, path: meta.path, record_id: record.record.id, deduplicated };
  }

  // ---- bytes ----

  async readUrl(caller: Caller, namespace: string, path: string, expiresIn: number | undefined, origin: string | null) {
    const node = await this.stat(caller, namespace, path);
    if (node.kind !== 'file') throw new LoomError('IS_A_DIRECTORY', `${path} is a directory; read URLs name files`);
    const seconds = Math.min(expiresIn ?? this.deps.options.readUrlSeconds, this.deps.options.readUrlMaxSeconds);
    const expires = Math.floor(this.deps.now() / 1000) + seconds;
    const location = `/v1/blobs/${node.content_hash}?${this.signer.sign(node.content_hash!, expires, node.content_type ?? undefined)}`;
    return {
      blob_url: origin ? `${origin}${location}` : location,
      expires_in: seconds,
      expires_at: new Date(expires * 1000).toISOString(),
      via: 'signed_url' as const,
      content_hash: node.content_hash!,
      size_bytes: node.size_bytes,
    };
  }

  verifySignature(hash: string, expires: string | undefined, sig: string, contentType: string | undefined): void {
    this.signer.verify(hash, expires, sig, contentType, Math.floor(this.deps.now() / 1000));
  }

  /** Whether any file `caller` may see holds `hash`. */
  async maySee(caller: Caller, hash: string): Promise<boolean> {
    const { state } = await this.deps.reader.globalFoldState<DataState>(caller, DATA_FOLD);
    for (const tree of state.namespaces.values()) if (tree.contents.has(hash)) return true;
    return false;
  }

  async blobSize(hash: string): Promise<number> {
    const size = await this.deps.blobs.sizeOf(hash);
    if (size === null) throw new LoomError('BLOB_NOT_FOUND', `blob ${hash} is not held on this instance`);
    return size;
  }

  openBlob(hash: string, start: number, end: number): Readable {
    return this.deps.blobs.read(hash, start, end);
  }
}

export function rootNode(): DataNode {
  return { kind: 'directory', path: ROOT, size_bytes: 0, content_hash: null, content_type: null, pin_state: 'unpinned', storage_class: null, created_at: null, modified_at: null, version: 0, record_id: '', sequence: 0, provenance: null };
}

function provenanceEntry(stored: StoredRecord, under: string): Record<string, unknown> | null {
  const { record } = stored;
  if (record.body['kind'] !== NODE_KIND) return null;
  const change = readChange(record.body);
  if (typeof change === 'string' || (change.op !== 'write' && change.op !== 'publish')) return null;
  if (!isWithin(change.path, under)) return null;
  return {
    op: change.op,
    path: change.path,
    actor: record.actor,
    clock: record.clock,
    sequence: stored.sequence,
    record_id: record.id,
    at: new Date(stored.createdAt).toISOString(),
    ...(change.op === 'write'
      ? { content_hash: change.content_hash, size_bytes: change.size_bytes, content_type: change.content_type, work_thread: change.provenance?.work_thread ?? null, goal_summary: change.provenance?.goal_summary ?? null }
      : { storage_class: change.storage_class }),
  };
}

export function parsePathInput(raw: unknown, field = 'path'): string {
  return parseDataPath(raw, field);
}
