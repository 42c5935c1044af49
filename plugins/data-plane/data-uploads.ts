/**
 * Resumable chunked uploads: init (early checks, a reservation against the
 * quota), chunks, abort, and completion (hash checks, the blob adopted before
 * the write record names it).
 */
import type { Readable } from 'node:stream';
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import type { LogCriticalSection } from '../../core/engine/log-critical-section.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { BlobStore } from '../../storage/contract/blob-store.js';
import type { DataPlaneOptions } from './config.js';
import { checkContentType } from './content-type.js';
import { parseContentRange } from './content-range.js';
import type { DataAccess } from './data-access.js';
import type { DataQuotas } from './data-quotas.js';
import { problemWith, type NamespaceTree } from './namespace-tree.js';
import type { NodeChange, WriteProvenance } from './node-records.js';
import { pathProblem } from './path-problem.js';
import type { TreeChanges } from './tree-changes.js';
import type { UploadSessions } from './upload-sessions.js';
import { chunkCount, missingChunks, rangesOf, type UploadMeta } from './upload-store.js';

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

export interface DataUploadsDeps {
  readonly access: DataAccess;
  readonly quotas: DataQuotas;
  readonly changes: TreeChanges;
  /** Compare-and-swap changes of one namespace run one at a time, across every server of a shared log. */
  readonly sections: LogCriticalSection;
  readonly store: UploadSessions;
  readonly blobs: BlobStore;
  readonly options: DataPlaneOptions;
}

export class DataUploads {
  constructor(private readonly deps: DataUploadsDeps) {}

  /** Removes expired uploads; answers how many. */
  sweep(): Promise<number> {
    return this.deps.store.sweep();
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
    await this.deps.access.checkMayWrite(caller, namespace);
    await this.deps.store.refresh();
    return this.deps.sections.run(`data-plane:${namespace}`, async () => {
      const tree = await this.deps.access.wholeTree(namespace);
      // Fail early (the same checks run again at completion, where they decide).
      pathProblem(problemWith(tree, { op: 'write', path: request.path, content_hash: '0'.repeat(64), size_bytes: request.size_bytes, content_type: contentType }));
      this.checkPrecondition(tree, request.path, precondition);
      this.deps.quotas.check(namespace, tree, request.size_bytes);
      return this.deps.store.create({
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

  /** The caller's live upload as it is now (on a shared log, including what other servers received). */
  async current(caller: Caller, uploadId: string): Promise<UploadMeta> {
    await this.deps.store.refresh();
    return this.upload(caller, uploadId);
  }

  /** The caller's live upload as last seen; someone else's answers as unknown (no leak of its existence). */
  upload(caller: Caller, uploadId: string): UploadMeta {
    const meta = this.deps.store.get(uploadId);
    if (!meta || meta.owner !== uploadOwner(caller)) throw new LoomError('UPLOAD_NOT_FOUND', `no upload ${uploadId} of yours is open (unknown, completed, aborted or expired after ${this.deps.options.uploadTtlSeconds} s idle): start again with POST /v1/data/write/init`);
    return meta;
  }

  async putChunk(caller: Caller, uploadId: string, contentRange: string | undefined, body: Readable): Promise<UploadMeta> {
    const meta = await this.current(caller, uploadId);
    const range = parseContentRange(contentRange, meta.size_bytes, meta.chunk_size);
    // The quota may have shrunk, or other uploads completed, since init.
    this.deps.quotas.check(meta.namespace, await this.deps.access.wholeTree(meta.namespace), meta.size_bytes, meta.upload_id);
    return this.deps.store.writeChunk(meta, range, body);
  }

  async abort(caller: Caller, uploadId: string): Promise<void> {
    await this.current(caller, uploadId);
    await this.deps.store.remove(uploadId);
  }

  async complete(caller: Caller, uploadId: string, declaredHash: string | undefined) {
    const meta = await this.current(caller, uploadId);
    if (!(await this.deps.store.seal(uploadId))) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${uploadId} is already being completed`);
    try {
      // The session as sealed: chunks that landed (on any server) before the seal count, later ones are refused.
      return await this.completeSealed(caller, this.deps.store.get(uploadId) ?? meta, declaredHash);
    } finally {
      // Still open only when the completion was refused in a way that keeps it (missing chunks, quota).
      await this.deps.store.unseal(uploadId);
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
    const hash = await this.deps.store.digest(meta);
    for (const expected of [meta.content_hash, declaredHash]) {
      if (expected !== null && expected !== undefined && expected !== hash) {
        await this.deps.store.remove(uploadId);
        throw new LoomError('CONTENT_HASH_MISMATCH', `the bytes received hash to ${hash}, not the declared ${expected}: the upload was discarded; upload the file again`, { expected_hash: expected, actual_hash: hash });
      }
    }
    const change: NodeChange = { op: 'write', path: meta.path, content_hash: hash, size_bytes: meta.size_bytes, content_type: meta.content_type, ...(meta.provenance ? { provenance: meta.provenance } : {}) };
    let deduplicated = false;
    let adopted = false;
    // The collector leaves this content alone from before it is adopted (or found already stored) until the record naming it is written.
    const release = await this.deps.blobs.hold(hash);
    const record = await this.deps.changes.change(
      caller,
      meta.namespace,
      change,
      (tree) => {
        this.checkPrecondition(tree, meta.path, meta.precondition);
        const extra = tree.contents.has(hash) ? 0 : meta.size_bytes;
        const replaced = tree.nodes.get(meta.path);
        const freed = replaced?.kind === 'file' && replaced.content_hash !== hash && tree.contents.get(replaced.content_hash!)?.refs === 1 ? replaced.size_bytes : 0;
        this.deps.quotas.check(meta.namespace, tree, extra - freed, meta.upload_id);
      },
      // The blob is in place before any record names it: a crash between the two leaves an unnamed blob, never a node without bytes.
      async () => {
        deduplicated = (await this.deps.store.adopt(meta, hash, this.deps.blobs)) === 'deduplicated';
        adopted = true;
      },
    ).catch(async (error: unknown) => {
      // A quota refusal before the bytes moved keeps the upload, to complete once space is freed; anything else ends it.
      if (adopted || !(error instanceof LoomError) || error.code !== 'QUOTA_EXCEEDED') await this.deps.store.remove(uploadId);
      throw error;
    }).finally(() => release());
    await this.deps.store.remove(uploadId);
    return { ok: true as const, content_hash: hash, size_bytes: meta.size_bytes, namespace: meta.namespace, path: meta.path, record_id: record.record.id, deduplicated };
  }
}

export const DataUploadsToken = token<DataUploads>('data-plane.DataUploads');
