/**
 * The filesystem blob driver (storage/contract/blob-store.ts), one per
 * server: `<dir>/<first two hex>/<sha256>`. Used when the record store keeps
 * no blobs of its own (SQLite, LevelDB, memory); PostgreSQL's driver keeps
 * them in the database (storage/postgres/postgres-blob-store.ts). It lives in
 * the data plane because the directory is the plugin's. A blob
 * reaches its name only by rename(2) of a file that was completely written
 * and fsynced, followed by an fsync of the directory, so a blob is never
 * visible half-written, a crash leaves either nothing or the whole blob, and
 * identical content is stored once (the second copy is simply dropped).
 *
 * Deletion (the collector, blob-collector.ts) and adoption of one hash take
 * turns under a per-hash lock, and a hash someone `hold`s (a completing
 * upload, from before its blob is adopted until its record is written) is
 * never deleted: so content that a record is about to name cannot vanish
 * between the collector's reference check and its unlink.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { LoomError } from '../../core/errors/loom-error.js';
import type { BlobPut, BlobStore, BlobUsage } from '../../storage/contract/blob-store.js';
import { SHA256_HEX } from './node-records.js';
import { storageError } from './storage-error.js';

export class FilesystemBlobStore implements BlobStore {
  readonly backend = 'filesystem';
  readonly shared = false;
  private readonly tmp: string;
  /** Every blob held and its size, from one scan at open, then kept by adopt and remove. */
  private readonly sizes = new Map<string, number>();
  private indexing: Promise<void> = Promise.resolve();
  /** Per-hash turn: adopt and remove of one hash never interleave. */
  private readonly turns = new Map<string, Promise<unknown>>();
  private readonly holds = new Map<string, number>();

  constructor(readonly dir: string) {
    this.tmp = join(dir, 'tmp');
  }

  /**
   * Creates the directories and drops temporary files a crash left behind;
   * the index of sizes is read in the background (`indexed()`), so a store
   * of many blobs does not hold the listener back.
   */
  async open(): Promise<void> {
    await rm(this.tmp, { recursive: true, force: true });
    await mkdir(this.tmp, { recursive: true });
    this.indexing = this.scan();
    // Observed here so a failed scan is not an unhandled rejection; indexed() scans again.
    this.indexing.catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.indexing.catch(() => undefined);
  }

  private async scan(): Promise<void> {
    for (const hash of await this.hashesOnDisk()) {
      if (this.sizes.has(hash)) continue;
      const size = await this.stat(hash);
      if (size !== null) this.sizes.set(hash, size);
    }
  }

  /** Every blob held, with its size (once the scan at open finished). */
  async indexed(): Promise<ReadonlyMap<string, number>> {
    try {
      await this.indexing;
    } catch {
      this.indexing = this.scan();
      await this.indexing;
    }
    return this.sizes;
  }

  /**
   * Keeps `hash` from being deleted until the returned release is called
   * (idempotent): taken before adopting content a record will name, released
   * once that record is written (or refused).
   */
  hold(hash: string): Promise<() => Promise<void>> {
    this.holds.set(hash, (this.holds.get(hash) ?? 0) + 1);
    let released = false;
    return Promise.resolve(async () => {
      if (released) return;
      released = true;
      const left = (this.holds.get(hash) ?? 1) - 1;
      if (left > 0) this.holds.set(hash, left);
      else this.holds.delete(hash);
    });
  }

  isHeld(hash: string): boolean {
    return this.holds.has(hash);
  }

  /** Runs `fn` in `hash`'s turn (after any adopt or remove of it in flight). */
  private async inTurn<T>(hash: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.turns.get(hash) ?? Promise.resolve()).then(fn);
    const settled = run.then(() => undefined, () => undefined);
    this.turns.set(hash, settled);
    try {
      return await run;
    } finally {
      if (this.turns.get(hash) === settled) this.turns.delete(hash);
    }
  }

  /**
   * Deletes the blob in its turn if nobody holds it and `collectable()` (the
   * caller's reference check, made there, after every adopt before it)
   * still agrees. Answers the bytes freed, or null when it was kept or absent.
   */
  remove(hash: string, collectable: () => Promise<boolean>): Promise<number | null> {
    return this.inTurn(hash, async () => {
      if (this.isHeld(hash) || !(await collectable())) return null;
      const size = await this.stat(hash);
      if (size === null) {
        this.sizes.delete(hash);
        return null;
      }
      await unlink(this.pathOf(hash)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      // Not fsynced: a deletion a power cut undoes leaves an unreferenced blob, collected again.
      this.sizes.delete(hash);
      return size;
    });
  }

  pathOf(hash: string): string {
    if (!SHA256_HEX.test(hash)) throw new Error(`not a SHA-256 hex digest: ${hash}`);
    return join(this.dir, hash.slice(0, 2), hash);
  }

  /** The blob's size, or null when this instance does not hold it. */
  async stat(hash: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(hash))).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  /**
   * Moves a complete, fsynced file (on the same filesystem) into place as
   * `hash`. When the blob already exists the file is removed instead.
   */
  adopt(file: string, hash: string): Promise<'stored' | 'deduplicated'> {
    const target = this.pathOf(hash);
    return this.inTurn(hash, async () => {
      const held = await this.stat(hash);
      if (held !== null) {
        await unlink(file);
        this.sizes.set(hash, held);
        return 'deduplicated';
      }
      const { size } = await stat(file);
      const shard = join(this.dir, hash.slice(0, 2));
      await mkdir(shard, { recursive: true });
      await rename(file, target);
      await syncDirectory(shard);
      this.sizes.set(hash, size);
      return 'stored';
    });
  }

  /** Stores a stream: temporary file, hash while writing, fsync, rename (the hash checked before the rename). */
  async put(source: Readable, expectedHash?: string): Promise<BlobPut> {
    const file = join(this.tmp, randomBytes(12).toString('hex'));
    const hash = createHash('sha256');
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, tap, createWriteStream(file, { flags: 'wx' }));
      await syncFile(file);
      const digest = hash.digest('hex');
      if (expectedHash !== undefined && expectedHash !== digest) {
        throw new LoomError('CONTENT_HASH_MISMATCH', `the bytes hash to ${digest}, not the expected ${expectedHash}: nothing was stored`, { expected_hash: expectedHash, actual_hash: digest });
      }
      const outcome = await this.adopt(file, digest);
      return { hash: digest, size, outcome };
    } catch (error) {
      await rm(file, { force: true });
      throw storageError(error);
    }
  }

  /** Bytes `start`..`end` inclusive of a blob. */
  read(hash: string, start: number, end: number): ReadStream {
    return createReadStream(this.pathOf(hash), { start, end, highWaterMark: 1 << 20 });
  }

  /** Every blob held, from the index kept since open (in hash order). */
  async *list(): AsyncIterable<{ hash: string; size: number }> {
    const sizes = await this.indexed();
    for (const hash of [...sizes.keys()].sort()) {
      const size = sizes.get(hash);
      if (size !== undefined) yield { hash, size };
    }
  }

  async usage(): Promise<BlobUsage> {
    let bytes = 0;
    const sizes = await this.indexed();
    for (const size of sizes.values()) bytes += size;
    return { blobs: sizes.size, bytes };
  }

  /** Every blob file on disk, in shard order. */
  async hashesOnDisk(): Promise<string[]> {
    const out: string[] = [];
    for (const shard of (await readdir(this.dir)).filter((name) => /^[0-9a-f]{2}$/.test(name)).sort()) {
      const names = await readdir(join(this.dir, shard)).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [] as string[];
        throw error;
      });
      for (const name of names.sort()) if (SHA256_HEX.test(name)) out.push(name);
    }
    return out;
  }
}

export async function syncFile(file: string): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename durable: the directory entry itself is flushed. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some filesystems refuse fsync on a directory (EINVAL, EISDIR); the rename stands.
    if (!['EINVAL', 'EISDIR', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}
