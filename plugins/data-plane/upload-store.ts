/**
 * Upload sessions on disk, so an upload survives a server restart:
 * `<dir>/<upload_id>/data` (a sparse file of the declared size that chunks
 * are written into at their offsets) and `meta.json` (what was declared, who
 * owns it, which chunks arrived). A chunk counts as arrived only after its
 * bytes are fsynced and the meta file naming it was replaced atomically; a
 * chunk cut short by a network failure is simply not counted and is sent
 * again. Sessions idle past their time to live are removed with their bytes.
 *
 * The SHA-256 of the content is computed while in-order chunks stream in (a
 * copy of the running hash is advanced per chunk and kept only when the chunk
 * lands), so completing a sequential upload reads nothing back; after a
 * restart or out-of-order chunks, completion hashes the rest from disk.
 */
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LoomError } from '../../core/errors/loom-error.js';
import type { BlobStore } from '../../storage/contract/blob-store.js';
import { FilesystemBlobStore, syncFile } from './filesystem-blob-store.js';
import type { NewUpload, UploadMeta, UploadSessions } from './upload-sessions.js';
import type { ChunkRange } from './content-range.js';
import { storageError } from './storage-error.js';

export type { NewUpload, UploadMeta } from './upload-sessions.js';

const UPLOAD_ID = /^up_[0-9a-f]{32}$/;

export function chunkCount(meta: Pick<UploadMeta, 'size_bytes' | 'chunk_size'>): number {
  return Math.ceil(meta.size_bytes / meta.chunk_size);
}

/** Byte ranges `[start, end]` (inclusive) of the chunks in `indices`, merged where adjacent. */
export function rangesOf(meta: Pick<UploadMeta, 'size_bytes' | 'chunk_size'>, indices: Iterable<number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const index of indices) {
    const start = index * meta.chunk_size;
    const end = Math.min(start + meta.chunk_size, meta.size_bytes) - 1;
    const last = out[out.length - 1];
    if (last && last[1] + 1 === start) last[1] = end;
    else out.push([start, end]);
  }
  return out;
}

export function missingChunks(meta: UploadMeta): number[] {
  const have = new Set(meta.received);
  const out: number[] = [];
  for (let i = 0; i < chunkCount(meta); i++) if (!have.has(i)) out.push(i);
  return out;
}

export interface UploadStoreOptions {
  readonly ttlMs: number;
  /** Free space an upload must leave on the volume. */
  readonly minFreeBytes: number;
  readonly now?: () => number;
}

export class UploadStore implements UploadSessions {
  private readonly sessions = new Map<string, UploadMeta>();
  private readonly hashes = new Map<string, { hash: Hash; upTo: number }>();
  /** Meta writes of one upload, in order. */
  private readonly persisting = new Map<string, Promise<void>>();
  /** PUTs in flight per upload, and uploads being completed (they take no more chunks). */
  private readonly inflight = new Map<string, { count: number; drained: Array<() => void> }>();
  private readonly sealed = new Set<string>();
  private readonly now: () => number;

  constructor(
    readonly dir: string,
    private readonly options: UploadStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Loads the sessions a previous run left (dropping unreadable ones) and removes expired ones. */
  async open(): Promise<{ resumed: number; removed: number }> {
    await mkdir(this.dir, { recursive: true });
    let removed = 0;
    for (const id of await readdir(this.dir)) {
      try {
        if (!UPLOAD_ID.test(id)) throw new Error('not an upload');
        const meta = JSON.parse(await readFile(join(this.dir, id, 'meta.json'), 'utf8')) as UploadMeta;
        if (meta.upload_id !== id) throw new Error('meta names another upload');
        this.sessions.set(id, meta);
      } catch {
        await rm(join(this.dir, id), { recursive: true, force: true });
        removed++;
      }
    }
    removed += await this.sweep();
    return { resumed: this.sessions.size, removed };
  }

  /** Sessions are this server's: nothing to see elsewhere. */
  async refresh(): Promise<void> {}

  /** The chunks are in the session's data file, not in blobs. */
  async pinned(): Promise<ReadonlySet<string>> {
    return new Set();
  }

  /** Renamed into a filesystem store (on the same volume), streamed into any other (the hash checked again). */
  async adopt(meta: UploadMeta, hash: string, blobs: BlobStore): Promise<'stored' | 'deduplicated'> {
    if (blobs instanceof FilesystemBlobStore) return blobs.adopt(this.dataPath(meta.upload_id), hash);
    return (await blobs.put(createReadStream(this.dataPath(meta.upload_id), { highWaterMark: 1 << 20 }), hash)).outcome;
  }

  async create(fields: NewUpload): Promise<UploadMeta> {
    await this.checkFreeSpace(fields.size_bytes);
    const id = `up_${randomBytes(16).toString('hex')}`;
    const now = this.now();
    const meta: UploadMeta = { ...fields, upload_id: id, created_at: new Date(now).toISOString(), expires_at: new Date(now + this.options.ttlMs).toISOString(), received: [] };
    const folder = join(this.dir, id);
    try {
      await mkdir(folder);
      const data = await open(join(folder, 'data'), 'wx');
      try {
        // Sparse: the space is taken as chunks arrive.
        await data.truncate(fields.size_bytes);
      } finally {
        await data.close();
      }
      await this.writeMeta(meta);
    } catch (error) {
      await rm(folder, { recursive: true, force: true });
      throw storageError(error);
    }
    this.sessions.set(id, meta);
    this.hashes.set(id, { hash: createHash('sha256'), upTo: 0 });
    return meta;
  }

  /** A live session, or undefined (unknown, finished or expired). */
  get(id: string): UploadMeta | undefined {
    if (!UPLOAD_ID.test(id)) return undefined;
    const meta = this.sessions.get(id);
    if (!meta) return undefined;
    if (Date.parse(meta.expires_at) <= this.now()) {
      // Removed in the background; a failure only delays it to the next sweep.
      this.remove(id).catch(() => undefined);
      return undefined;
    }
    return meta;
  }

  /** Open sessions of a namespace (quota reservations), optionally excluding one. */
  reservedBytes(namespace: string, except?: string): number {
    let total = 0;
    for (const meta of this.sessions.values()) if (meta.namespace === namespace && meta.upload_id !== except) total += meta.size_bytes;
    return total;
  }

  openCount(namespace: string): number {
    let count = 0;
    for (const meta of this.sessions.values()) if (meta.namespace === namespace) count++;
    return count;
  }

  dataPath(id: string): string {
    return join(this.dir, id, 'data');
  }

  /**
   * Stops an upload from taking chunks and waits for the PUTs in flight, so
   * the bytes hashed at completion are the bytes that become the blob.
   * Answers false when the upload is already being completed.
   */
  async seal(id: string): Promise<boolean> {
    if (this.sealed.has(id)) return false;
    this.sealed.add(id);
    const inflight = this.inflight.get(id);
    if (inflight && inflight.count > 0) await new Promise<void>((resolve) => inflight.drained.push(resolve));
    return true;
  }

  /** Lets a sealed upload take chunks again (a completion refused for a reason that keeps the upload). */
  async unseal(id: string): Promise<void> {
    this.sealed.delete(id);
  }

  /** Streams one PUT's bytes into place; the chunks count once the bytes are durable. */
  async writeChunk(meta: UploadMeta, range: ChunkRange, body: Readable): Promise<UploadMeta> {
    const id = meta.upload_id;
    if (this.sealed.has(id)) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${id} is being completed and takes no more chunks`);
    let inflight = this.inflight.get(id);
    if (!inflight) this.inflight.set(id, (inflight = { count: 0, drained: [] }));
    inflight.count++;
    try {
      return await this.writeChunkBytes(meta, range, body);
    } finally {
      if (--inflight.count === 0) {
        this.inflight.delete(id);
        for (const resolve of inflight.drained.splice(0)) resolve();
      }
    }
  }

  private async writeChunkBytes(meta: UploadMeta, range: ChunkRange, body: Readable): Promise<UploadMeta> {
    const expected = range.end - range.start + 1;
    // Re-sending chunks that arrived: they count as missing until the new bytes land, so a re-send cut short
    // (half new bytes over the old) is sent again rather than completed, and the hash is recomputed from disk.
    if (meta.received.some((index) => index >= range.first && index <= range.last)) {
      meta.received = meta.received.filter((index) => index < range.first || index > range.last);
      const current = this.hashes.get(meta.upload_id);
      if (current && range.start < current.upTo) this.hashes.set(meta.upload_id, { hash: createHash('sha256'), upTo: 0 });
      await this.writeMeta(meta);
    }
    const running = this.hashes.get(meta.upload_id);
    const tee = running && running.upTo === range.start ? running.hash.copy() : null;
    let seen = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        // Refuse before writing a byte past the declared range.
        if (seen + chunk.length > expected) {
          return done(new LoomError('CONTENT_LENGTH_MISMATCH', `the body is longer than the ${expected} bytes Content-Range declares`));
        }
        seen += chunk.length;
        tee?.update(chunk);
        done(null, chunk);
      },
      flush(done) {
        done(seen === expected ? null : new LoomError('CONTENT_LENGTH_MISMATCH', `the body has ${seen} bytes but Content-Range declares ${expected}: the chunk was not stored; send it again`));
      },
    });
    try {
      await pipeline(body, count, createWriteStream(this.dataPath(meta.upload_id), { flags: 'r+', start: range.start, highWaterMark: 1 << 20 }));
      await syncFile(this.dataPath(meta.upload_id));
    } catch (error) {
      throw storageError(error);
    }
    if (!this.sessions.has(meta.upload_id)) throw new LoomError('UPLOAD_NOT_FOUND', `upload ${meta.upload_id} was aborted or expired while this chunk arrived`);
    const current = this.hashes.get(meta.upload_id);
    if (current && range.start < current.upTo) {
      // Bytes already hashed were replaced: the running hash no longer describes the file; completion rehashes it from disk.
      this.hashes.set(meta.upload_id, { hash: createHash('sha256'), upTo: 0 });
    } else if (tee && current && current === running && current.upTo === range.start) {
      current.hash = tee;
      current.upTo = range.end + 1;
    }
    const received = new Set(meta.received);
    for (let i = range.first; i <= range.last; i++) received.add(i);
    meta.received = [...received].sort((a, b) => a - b);
    meta.expires_at = new Date(this.now() + this.options.ttlMs).toISOString();
    await this.writeMeta(meta);
    return meta;
  }

  /** The SHA-256 of the whole content (every chunk must have arrived). */
  async digest(meta: UploadMeta): Promise<string> {
    let running = this.hashes.get(meta.upload_id);
    if (!running) this.hashes.set(meta.upload_id, (running = { hash: createHash('sha256'), upTo: 0 }));
    if (running.upTo < meta.size_bytes) {
      const hash = running.hash;
      await pipeline(createReadStream(this.dataPath(meta.upload_id), { start: running.upTo, highWaterMark: 1 << 20 }), async function* (source) {
        for await (const chunk of source) hash.update(chunk as Buffer);
      });
      running.upTo = meta.size_bytes;
    }
    return running.hash.copy().digest('hex');
  }

  /** Forgets a session and removes its folder (its data file may already have become a blob). */
  async remove(id: string): Promise<void> {
    this.sessions.delete(id);
    this.hashes.delete(id);
    this.sealed.delete(id);
    await this.persisting.get(id)?.catch(() => undefined);
    this.persisting.delete(id);
    await rm(join(this.dir, id), { recursive: true, force: true });
  }

  /** Removes sessions idle past their time to live; answers how many. */
  async sweep(): Promise<number> {
    const now = this.now();
    const expired = [...this.sessions.values()].filter((meta) => Date.parse(meta.expires_at) <= now);
    for (const meta of expired) await this.remove(meta.upload_id);
    return expired.length;
  }

  private async checkFreeSpace(size: number): Promise<void> {
    const stats = await statfs(this.dir);
    const free = Number(stats.bavail) * Number(stats.bsize);
    if (free - size < this.options.minFreeBytes) {
      throw new LoomError('STORAGE_FULL', `the instance has ${free} bytes free, too little for ${size} more while keeping ${this.options.minFreeBytes} in reserve: nothing was stored`);
    }
  }

  private writeMeta(meta: UploadMeta): Promise<void> {
    const id = meta.upload_id;
    const text = JSON.stringify(meta);
    const next = (this.persisting.get(id) ?? Promise.resolve()).catch(() => undefined).then(async () => {
      const file = join(this.dir, id, 'meta.json');
      // Atomic (rename) but not fsynced: the chunk's bytes were fsynced before this names them, and a meta
      // lost to a power cut only makes chunks that did arrive look missing, so they are sent again.
      await writeFile(`${file}.tmp`, text);
      await rename(`${file}.tmp`, file);
    });
    this.persisting.set(id, next);
    return next.catch((error) => {
      throw storageError(error);
    });
  }
}
