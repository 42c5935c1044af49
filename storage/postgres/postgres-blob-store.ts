/**
 * The PostgreSQL blob driver (storage/contract/blob-store.ts): blobs in the
 * log's database, so every server of a shared log serves every blob. A blob
 * is a row of `blobs` and its bytes rows of `blob_chunks` (CHUNK_BYTES each,
 * stored uncompressed: content is usually compressed already).
 *
 * Streamed both ways: `put` inserts each chunk as it fills, under a staging
 * id, and only the last transaction names the chunks by their hash and adds
 * the `blobs` row, so a blob is visible whole or not at all and a crash leaves
 * only staging rows (dropped a day later by `open`, since another server may
 * still be streaming them). `read` fetches only the chunks a range covers, a
 * few at a time. Never a whole file in memory.
 *
 * Turns across servers: naming a blob, `hold` and `remove` of one hash take
 * the same transaction-scoped advisory lock, so a hold taken before a remove
 * is seen by it, and one taken after waits for it (then finds the content
 * gone and stores it again). Holds expire (HOLD_MS) so a server that died
 * holding one does not pin the content for ever.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { LoomError } from '../../core/errors/loom-error.js';
import { SHA256_HEX_PATTERN, type BlobPut, type BlobStore, type BlobUsage } from '../contract/blob-store.js';

export const CHUNK_BYTES = 256 * 1024;
/** Chunks fetched per query when reading. */
const READ_BATCH = 4;
const HOLD_MS = 3600_000;
const STAGING_MS = 24 * 3600_000;

function unavailable(error: unknown): unknown {
  if (error instanceof LoomError || error instanceof TypeError) return error;
  return new LoomError('SERVICE_UNAVAILABLE', `database unavailable: ${(error as Error).message ?? String(error)}`);
}

function checkHash(hash: string): void {
  if (!SHA256_HEX_PATTERN.test(hash)) throw new TypeError(`not a SHA-256 hex digest: ${hash}`);
}

export class PostgresBlobStore implements BlobStore {
  readonly backend = 'postgres';
  readonly shared = true;

  /** `db`: the record store's pool (open while the record store is). */
  constructor(private readonly db: () => pg.Pool, private readonly schema: string) {}

  private lockKey(hash: string): string {
    return `loom:${this.schema}:blob:${hash}`;
  }

  /** `work` in one transaction holding `hash`'s turn. */
  private async inTurn<T>(hash: string, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.db().connect();
    } catch (error) {
      throw unavailable(error);
    }
    let broken = false;
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [this.lockKey(hash)]);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw unavailable(error);
    } finally {
      client.release(broken);
    }
  }

  async open(): Promise<void> {
    const cutoff = Date.now() - STAGING_MS;
    try {
      await this.db().query('DELETE FROM blob_chunks WHERE owner IN (SELECT id FROM blob_staging WHERE started_at < $1)', [cutoff]);
      await this.db().query('DELETE FROM blob_staging WHERE started_at < $1', [cutoff]);
      await this.db().query('DELETE FROM blob_holds WHERE expires_at <= $1', [Date.now()]);
    } catch (error) {
      throw unavailable(error);
    }
  }

  async close(): Promise<void> {
    // The pool is the record store's.
  }

  async put(source: Readable, expectedHash?: string): Promise<BlobPut> {
    const staging = `stg_${randomBytes(16).toString('hex')}`;
    const db = this.db();
    const query = (text: string, values: unknown[]) =>
      db.query(text, values).catch((error: unknown) => {
        throw unavailable(error);
      });
    const hasher = createHash('sha256');
    let size = 0;
    let part = 0;
    try {
      await query('INSERT INTO blob_staging (id, started_at) VALUES ($1, $2)', [staging, Date.now()]);
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flush = async (bytes: Buffer) => {
        await query('INSERT INTO blob_chunks (owner, part, bytes) VALUES ($1, $2, $3)', [staging, part++, bytes]);
      };
      for await (const piece of source) {
        let chunk = Buffer.isBuffer(piece) ? piece : Buffer.from(piece as string);
        hasher.update(chunk);
        size += chunk.length;
        while (pendingBytes + chunk.length >= CHUNK_BYTES) {
          const take = CHUNK_BYTES - pendingBytes;
          pending.push(chunk.subarray(0, take));
          chunk = chunk.subarray(take);
          await flush(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
        }
        if (chunk.length > 0) {
          pending.push(chunk);
          pendingBytes += chunk.length;
        }
      }
      if (pendingBytes > 0) await flush(Buffer.concat(pending));
      const hash = hasher.digest('hex');
      if (expectedHash !== undefined && expectedHash !== hash) {
        throw new LoomError('CONTENT_HASH_MISMATCH', `the bytes hash to ${hash}, not the expected ${expectedHash}: nothing was stored`, { expected_hash: expectedHash, actual_hash: hash });
      }
      const outcome = await this.inTurn(hash, async (client) => {
        const { rows } = await client.query('SELECT 1 FROM blobs WHERE hash = $1', [hash]);
        if (rows.length > 0) {
          await client.query('DELETE FROM blob_chunks WHERE owner = $1', [staging]);
          await client.query('DELETE FROM blob_staging WHERE id = $1', [staging]);
          return 'deduplicated' as const;
        }
        await client.query('UPDATE blob_chunks SET owner = $1 WHERE owner = $2', [hash, staging]);
        await client.query('INSERT INTO blobs (hash, size, chunk_size, stored_at) VALUES ($1, $2, $3, $4)', [hash, size, CHUNK_BYTES, Date.now()]);
        await client.query('DELETE FROM blob_staging WHERE id = $1', [staging]);
        return 'stored' as const;
      });
      return { hash, size, outcome };
    } catch (error) {
      // Best effort: what is left is dropped by a later open().
      await db.query('DELETE FROM blob_chunks WHERE owner = $1', [staging]).catch(() => undefined);
      await db.query('DELETE FROM blob_staging WHERE id = $1', [staging]).catch(() => undefined);
      throw error;
    }
  }

  async stat(hash: string): Promise<number | null> {
    checkHash(hash);
    try {
      const { rows } = await this.db().query<{ size: string }>('SELECT size FROM blobs WHERE hash = $1', [hash]);
      return rows[0] ? Number(rows[0].size) : null;
    } catch (error) {
      throw unavailable(error);
    }
  }

  read(hash: string, start: number, end: number): Readable {
    checkHash(hash);
    const db = this.db;
    async function* chunks(): AsyncGenerator<Buffer> {
      const { rows } = await db().query<{ size: string; chunk_size: number }>('SELECT size, chunk_size FROM blobs WHERE hash = $1', [hash]);
      const row = rows[0];
      if (!row) throw new LoomError('BLOB_NOT_FOUND', `blob ${hash} is not held`);
      const last = Math.min(end, Number(row.size) - 1);
      if (last < start) return;
      const chunkSize = row.chunk_size;
      const lastPart = Math.floor(last / chunkSize);
      for (let from = Math.floor(start / chunkSize); from <= lastPart; from += READ_BATCH) {
        const to = Math.min(from + READ_BATCH - 1, lastPart);
        const batch = await db().query<{ part: number; bytes: Buffer }>('SELECT part, bytes FROM blob_chunks WHERE owner = $1 AND part BETWEEN $2 AND $3 ORDER BY part', [hash, from, to]);
        if (batch.rows.length !== to - from + 1) throw new LoomError('BLOB_NOT_FOUND', `blob ${hash} was removed while it was read`);
        for (const { part, bytes } of batch.rows) {
          const offset = part * chunkSize;
          yield bytes.subarray(Math.max(0, start - offset), Math.min(bytes.length, last - offset + 1));
        }
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  async hold(hash: string): Promise<() => Promise<void>> {
    checkHash(hash);
    const id = `hold_${randomBytes(12).toString('hex')}`;
    await this.inTurn(hash, (client) => client.query('INSERT INTO blob_holds (id, hash, expires_at) VALUES ($1, $2, $3)', [id, hash, Date.now() + HOLD_MS]));
    let released: Promise<void> | null = null;
    return () =>
      (released ??= this.db()
        .query('DELETE FROM blob_holds WHERE id = $1', [id])
        .then(
          () => undefined,
          (error: unknown) => {
            throw unavailable(error);
          },
        ));
  }

  remove(hash: string, collectable: () => Promise<boolean>): Promise<number | null> {
    checkHash(hash);
    return this.inTurn(hash, async (client) => {
      const { rows } = await client.query<{ size: string }>('SELECT size FROM blobs WHERE hash = $1', [hash]);
      if (!rows[0]) return null;
      const held = await client.query('SELECT 1 FROM blob_holds WHERE hash = $1 AND expires_at > $2 LIMIT 1', [hash, Date.now()]);
      if (held.rows.length > 0 || !(await collectable())) return null;
      await client.query('DELETE FROM blob_chunks WHERE owner = $1', [hash]);
      await client.query('DELETE FROM blobs WHERE hash = $1', [hash]);
      return Number(rows[0].size);
    });
  }

  async *list(): AsyncIterable<{ hash: string; size: number }> {
    let after = '';
    for (;;) {
      let rows: Array<{ hash: string; size: string }>;
      try {
        ({ rows } = await this.db().query<{ hash: string; size: string }>('SELECT hash, size FROM blobs WHERE hash > $1 ORDER BY hash LIMIT 1000', [after]));
      } catch (error) {
        throw unavailable(error);
      }
      for (const row of rows) yield { hash: row.hash, size: Number(row.size) };
      if (rows.length < 1000) return;
      after = rows[rows.length - 1]!.hash;
    }
  }

  async usage(): Promise<BlobUsage> {
    try {
      const { rows } = await this.db().query<{ blobs: string; bytes: string }>('SELECT count(*) AS blobs, coalesce(sum(size), 0) AS bytes FROM blobs');
      return { blobs: Number(rows[0]!.blobs), bytes: Number(rows[0]!.bytes) };
    } catch (error) {
      throw unavailable(error);
    }
  }
}
