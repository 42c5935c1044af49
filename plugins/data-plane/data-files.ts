/**
 * Files as another plugin handles them for a caller (the work plugin's file
 * tools for members): a directory listing, a file's first bytes, and a whole
 * small file written in one call. Each goes through the same rooms as the
 * HTTP routes (access, tree reads, uploads, blob reads), so the caller meets
 * the same checks: its read view, the ingest gates of the node record,
 * preconditions, quotas.
 */
import { Readable } from 'node:stream';
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { BlobReads } from './blob-reads.js';
import type { DataAccess } from './data-access.js';
import { parseDataPath, ROOT } from './data-path.js';
import type { DataUploads } from './data-uploads.js';
import type { DataNode } from './namespace-tree.js';
import type { WriteProvenance } from './node-records.js';
import type { TreeReads } from './tree-reads.js';

export interface DataFilesDeps {
  readonly access: DataAccess;
  readonly reads: TreeReads;
  readonly uploads: DataUploads;
  readonly blobs: BlobReads;
}

export interface FileHead {
  readonly namespace: string;
  readonly node: DataNode;
  /** The first bytes of the file (all of it when `truncated` is false). */
  readonly bytes: Buffer;
  readonly truncated: boolean;
}

export interface FileWrite {
  readonly path: string;
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly provenance?: WriteProvenance;
}

export class DataFiles {
  constructor(private readonly deps: DataFilesDeps) {}

  /** The namespace a call addresses: the one named, else the caller's only namespace grain, else `default`. */
  namespaceFor(caller: Caller, requested: string | undefined): string {
    return this.deps.access.namespaceFor(caller, requested);
  }

  /** The entries directly under `path` (default the root), by name, at most `limit`. */
  async list(caller: Caller, namespace: string, path: string | undefined, limit: number): Promise<{ path: string; entries: DataNode[]; more: boolean }> {
    const directory = parseDataPath(path ?? ROOT);
    const { entries, next } = await this.deps.reads.list(caller, namespace, directory, undefined, limit);
    return { path: directory, entries, more: next !== null };
  }

  /** The file's first `maxBytes` bytes (a directory is IS_A_DIRECTORY, bytes held elsewhere BLOB_NOT_FOUND). */
  async head(caller: Caller, namespace: string, path: string, maxBytes: number): Promise<FileHead> {
    const file = parseDataPath(path);
    const node = await this.deps.reads.stat(caller, namespace, file);
    if (node.kind !== 'file') throw new LoomError('IS_A_DIRECTORY', `${file} is a directory; list it, or name a file`);
    const length = Math.min(node.size_bytes, maxBytes);
    if (length === 0) return { namespace, node, bytes: Buffer.alloc(0), truncated: node.size_bytes > 0 };
    await this.deps.blobs.blobSize(node.content_hash!);
    const chunks: Buffer[] = [];
    for await (const chunk of this.deps.blobs.openBlob(node.content_hash!, 0, length - 1)) chunks.push(chunk as Buffer);
    return { namespace, node, bytes: Buffer.concat(chunks), truncated: node.size_bytes > length };
  }

  /** Writes the whole file (last writer wins) through an upload opened, filled and completed here; a refused write leaves no upload behind. */
  async write(caller: Caller, namespace: string, write: FileWrite) {
    const { uploads } = this.deps;
    const size = write.bytes.length;
    const meta = await uploads.initUpload(caller, namespace, { path: parseDataPath(write.path), size_bytes: size, content_type: write.contentType, ...(write.provenance ? { provenance: write.provenance } : {}) });
    try {
      for (let start = 0; start < size; start += meta.chunk_size) {
        const end = Math.min(start + meta.chunk_size, size) - 1;
        await uploads.putChunk(caller, meta.upload_id, `bytes ${start}-${end}/${size}`, Readable.from([write.bytes.subarray(start, end + 1)]));
      }
    } catch (error) {
      await uploads.abort(caller, meta.upload_id).catch(() => {});
      throw error;
    }
    try {
      return await uploads.complete(caller, meta.upload_id, undefined);
    } catch (error) {
      // A completion refused in a way that keeps the upload (a quota): nobody will resume it.
      await uploads.abort(caller, meta.upload_id).catch(() => {});
      throw error;
    }
  }
}

export const DataFilesToken = token<DataFiles>('data-plane.DataFiles');
