/**
 * The content-addressed blob store: `<dir>/<first two hex>/<sha256>`. A blob
 * reaches its name only by rename(2) of a file that was completely written
 * and fsynced, followed by an fsync of the directory, so a blob is never
 * visible half-written, a crash leaves either nothing or the whole blob, and
 * identical content is stored once (the second copy is simply dropped).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { SHA256_HEX } from './node-records.js';
import { storageError } from './storage-error.js';

export class BlobStore {
  private readonly tmp: string;

  constructor(readonly dir: string) {
    this.tmp = join(dir, 'tmp');
  }

  /** Creates the directories and drops temporary files a crash left behind. */
  async open(): Promise<void> {
    await rm(this.tmp, { recursive: true, force: true });
    await mkdir(this.tmp, { recursive: true });
  }

  pathOf(hash: string): string {
    if (!SHA256_HEX.test(hash)) throw new Error(`not a SHA-256 hex digest: ${hash}`);
    return join(this.dir, hash.slice(0, 2), hash);
  }

  /** The blob's size, or null when this instance does not hold it. */
  async sizeOf(hash: string): Promise<number | null> {
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
  async adopt(file: string, hash: string): Promise<'stored' | 'deduplicated'> {
    const target = this.pathOf(hash);
    if ((await this.sizeOf(hash)) !== null) {
      await unlink(file);
      return 'deduplicated';
    }
    const shard = join(this.dir, hash.slice(0, 2));
    await mkdir(shard, { recursive: true });
    await rename(file, target);
    await syncDirectory(shard);
    return 'stored';
  }

  /** Stores a stream (small writes, tests): temporary file, hash while writing, fsync, rename. */
  async put(source: Readable): Promise<{ hash: string; size: number }> {
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
      await this.adopt(file, digest);
      return { hash: digest, size };
    } catch (error) {
      await rm(file, { force: true });
      throw storageError(error);
    }
  }

  /** Bytes `start`..`end` inclusive of a blob. */
  read(hash: string, start: number, end: number): ReadStream {
    return createReadStream(this.pathOf(hash), { start, end, highWaterMark: 1 << 20 });
  }

  /** Every blob held (tests, doctor): hashes in shard order. */
  async list(): Promise<string[]> {
    const out: string[] = [];
    for (const shard of (await readdir(this.dir)).filter((name) => /^[0-9a-f]{2}$/.test(name)).sort()) {
      for (const name of (await readdir(join(this.dir, shard))).sort()) if (SHA256_HEX.test(name)) out.push(name);
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
