/**
 * The bytes: signed read URLs and their verification, who may see a blob,
 * and reading one (by range).
 */
import type { Readable } from 'node:stream';
import { SYSTEM, type Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { isReferenced } from './blob-collector.js';
import type { BlobStore } from '../../storage/contract/blob-store.js';
import type { DataPlaneOptions } from './config.js';
import { DATA_FOLD, type DataState } from './data-fold.js';
import { UrlSigner } from './signed-url.js';
import type { TreeReads } from './tree-reads.js';

export interface BlobReadsDeps {
  readonly reads: TreeReads;
  readonly reader: RecordReader;
  readonly blobs: BlobStore;
  readonly options: DataPlaneOptions;
  readonly now: () => number;
}

export class BlobReads {
  private urlSigner: UrlSigner | null = null;

  constructor(private readonly deps: BlobReadsDeps) {}

  /** Opens the URL signing secret: a file, the shared store's (a shared log), or `null`: one kept in memory. */
  async openSigner(source: string | Parameters<typeof UrlSigner.shared>[0] | null): Promise<void> {
    this.urlSigner = source === null ? UrlSigner.ephemeral() : typeof source === 'string' ? await UrlSigner.open(source) : await UrlSigner.shared(source);
  }

  private get signer(): UrlSigner {
    if (!this.urlSigner) throw new Error('the data plane is used before it was opened');
    return this.urlSigner;
  }

  async readUrl(caller: Caller, namespace: string, path: string, expiresIn: number | undefined, origin: string | null) {
    const node = await this.deps.reads.stat(caller, namespace, path);
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

  /**
   * Whether a file of any namespace holds `hash`: what a signed URL may read.
   * Content whose last file was removed or overwritten is not served (like a
   * presigned URL of a deleted object), so the collector may take it.
   */
  async heldByAnyFile(hash: string): Promise<boolean> {
    const { state } = await this.deps.reader.globalFoldState<DataState>(SYSTEM, DATA_FOLD);
    return isReferenced(state, hash);
  }

  async blobSize(hash: string): Promise<number> {
    const size = await this.deps.blobs.stat(hash);
    if (size === null) throw new LoomError('BLOB_NOT_FOUND', `blob ${hash} is not held on this instance`);
    return size;
  }

  openBlob(hash: string, start: number, end: number): Readable {
    return this.deps.blobs.read(hash, start, end);
  }
}

export const BlobReadsToken = token<BlobReads>('data-plane.BlobReads');
