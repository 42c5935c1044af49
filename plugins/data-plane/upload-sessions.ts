/**
 * What the data plane asks of the place upload sessions live: on this
 * server's disk (upload-store.ts), or, on a shared log, in the shared store
 * (shared-upload-store.ts) so the chunks of one upload may land on different
 * servers and any of them completes it.
 */
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../storage/contract/blob-store.js';
import type { ChunkRange } from './content-range.js';
import type { WriteProvenance } from './node-records.js';

export interface UploadSessions {
  /** Loads what a previous run (or another server) left and removes expired sessions. */
  open(): Promise<{ resumed: number; removed: number }>;
  /** Sees sessions other servers opened or changed since (nothing to do for a server's own store). */
  refresh(): Promise<void>;
  create(fields: NewUpload): Promise<UploadMeta>;
  /** A live session as last seen (after `refresh`), or undefined (unknown, finished or expired). */
  get(id: string): UploadMeta | undefined;
  reservedBytes(namespace: string, except?: string): number;
  openCount(namespace: string): number;
  /** Stops the upload taking chunks; false when it is already being completed. */
  seal(id: string): Promise<boolean>;
  unseal(id: string): Promise<void>;
  writeChunk(meta: UploadMeta, range: ChunkRange, body: Readable): Promise<UploadMeta>;
  /** The SHA-256 of the whole content (every chunk arrived, the upload sealed). */
  digest(meta: UploadMeta): Promise<string>;
  /** Makes the content the blob `hash` (after `digest`, while the caller holds `hash`). */
  adopt(meta: UploadMeta, hash: string, blobs: BlobStore): Promise<'stored' | 'deduplicated'>;
  remove(id: string): Promise<void>;
  sweep(): Promise<number>;
  /** Blobs the open sessions are made of (shared sessions keep their chunks as blobs): never collected. */
  pinned(): Promise<ReadonlySet<string>>;
}

export interface UploadMeta {
  readonly upload_id: string;
  readonly namespace: string;
  readonly path: string;
  readonly size_bytes: number;
  readonly chunk_size: number;
  readonly content_type: string;
  /** `{expected_hash: string}` compare-and-swap, `{expected_hash: null}` create-only, null last writer wins. */
  readonly precondition: { readonly expected_hash: string | null } | null;
  /** The hash the client declared, checked at completion. */
  readonly content_hash: string | null;
  readonly provenance: WriteProvenance | null;
  /** Who may continue the upload (uploadOwner of the caller that opened it). */
  readonly owner: string;
  readonly created_at: string;
  expires_at: string;
  /** Indices of the chunks that arrived, ascending. */
  received: number[];
}

export type NewUpload = Omit<UploadMeta, 'upload_id' | 'created_at' | 'expires_at' | 'received'>;
