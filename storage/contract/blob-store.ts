/**
 * The blob-store contract: content-addressed bytes named by their SHA-256.
 * Drivers: the filesystem store (plugins/data-plane/filesystem-blob-store.ts,
 * one directory per server) and PostgreSQL (storage/postgres, chunked rows
 * shared by every server of the log). storage/compliance/blob-store.suite.ts
 * holds every driver to it.
 *
 * The reference check that decides whether content may be deleted is not the
 * store's (it belongs to whoever names blobs: the data plane's fold); the
 * store only guarantees that `remove` makes that check in the hash's turn,
 * after every `hold` taken before it, so content a record is about to name
 * cannot vanish between the caller's check and the deletion.
 */
import type { Readable } from 'node:stream';

export interface BlobPut {
  readonly hash: string;
  readonly size: number;
  /** `deduplicated`: the content was already held, the new copy was dropped. */
  readonly outcome: 'stored' | 'deduplicated';
}

export interface BlobUsage {
  readonly blobs: number;
  readonly bytes: number;
}

export interface BlobStore {
  /** `filesystem`, `postgres`. */
  readonly backend: string;
  /** Every server of a shared log sees the same blobs (false: this server's own). */
  readonly shared: boolean;
  /** Prepares the store, dropping what a crash left half-written. */
  open(): Promise<void>;
  close(): Promise<void>;
  /**
   * Streams `source` in, hashing as it goes; the blob is visible only once
   * whole. With `expectedHash`, content that hashes otherwise is refused
   * with CONTENT_HASH_MISMATCH and nothing is kept.
   */
  put(source: Readable, expectedHash?: string): Promise<BlobPut>;
  /** The blob's size, or null when it is not held. */
  stat(hash: string): Promise<number | null>;
  /** Bytes `start`..`end` (inclusive) as a stream; BLOB_NOT_FOUND (on the stream) when absent. */
  read(hash: string, start: number, end: number): Readable;
  /**
   * Keeps `hash` from being removed until the answered release is called
   * (idempotent): taken before content a record will name is stored or
   * found, released once that record is written (or refused).
   */
  hold(hash: string): Promise<() => Promise<void>>;
  /**
   * Deletes the blob if nobody holds it and `collectable()` (the caller's
   * reference check, made in the hash's turn) agrees. Answers the bytes
   * freed, or null when it was kept or absent.
   */
  remove(hash: string, collectable: () => Promise<boolean>): Promise<number | null>;
  /** Every blob held with its size, in hash order. */
  list(): AsyncIterable<{ readonly hash: string; readonly size: number }>;
  usage(): Promise<BlobUsage>;
}

export const SHA256_HEX_PATTERN = /^[0-9a-f]{64}$/;
