/**
 * The PostgreSQL driver: one log in one schema of a PostgreSQL database,
 * which several Loom servers may share.
 *
 * The public methods and their checks are RecordStoreFacade's; this class
 * implements its primitives. It does not extend JournaledRecordStore: that
 * numbers records in-process and keeps a local journal, both of which
 * assume one writer.
 *
 * Write path. Concurrent appends are gathered by the façade's GroupCommit;
 * each group is one transaction that first locks the single `log_head` row (SELECT … FOR
 * UPDATE), then looks up the batch's clock slots, inserts the records it
 * accepts numbered after the head, advances the head and COMMITs, which
 * releases the row lock. Writers on every server therefore commit one after
 * another in sequence order: when a reader sees sequence N, every sequence
 * below N is already committed (PostgreSQL makes a transaction visible
 * before it releases its locks). So the changes feed is gapless by
 * construction and sequences stay dense (a rolled-back batch restores the
 * head), and a slot lookup under the lock cannot race another server's
 * insert. The price is one commit at a time across servers; each is a whole
 * group commit of up to `maxBatch` records (docs/decisions.md).
 *
 * Acknowledgement follows COMMIT (synchronous_commit as the server is
 * configured; on by default): durable on acknowledgement, with no local
 * journal to lose. After each commit the writer NOTIFYs the new head on
 * `loom_commits_<schema>`, which `watchCommits` listeners on every server
 * receive; leases are session advisory locks (`lease`).
 */
import pg from 'pg';
import { LoomError } from '../../core/errors/loom-error.js';
import type { LoomRecord } from '../../core/records/record.js';
import type { ParsedQuery } from '../contract/query/filter-ast.js';
import { RecordStoreFacade, type NormalisedPage } from '../contract/record-store-facade.js';
import type { QueryResult, StoreBackup, StoreCapabilities, StoreLease, ThreadSummary } from '../contract/record-store.js';
import { clockSlotKey, type AppendOutcome, type PreparedRecord, type StoredRecord } from '../contract/stored-record.js';
import { threadDeltas } from '../contract/thread-summaries.js';
import type { BlobStore } from '../contract/blob-store.js';
import { PostgresSharedVectors } from './postgres-shared-vectors.js';
import { AdvisoryLease } from './advisory-lease.js';
import { PostgresBlobStore } from './postgres-blob-store.js';
import { migrate } from './migrations.js';
import { queryableBody, RECORD_COLUMNS, rowToStored, type RecordRow } from './record-row.js';
import { runQuery } from './run-query.js';
import { connectionForTool, findPgTool, runPgTool } from './pg-tools.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface PostgresRecordStoreOptions {
  /** `postgres://user:password@host:port/database` (libpq URL). */
  readonly connectionString: string;
  /** The schema holding the log's tables, created if missing. @default 'loom' */
  readonly schema?: string;
  /** Upper bound on records per group commit. @default 2000 */
  readonly maxBatch?: number;
  /** Connections in the pool (reads, writes, queries). @default 10 */
  readonly poolSize?: number;
  /** How often a lease is retried, and a held one checked, in ms. @default 1000 */
  readonly leaseCheckMs?: number;
}

/** bigint (int8, oid 20) columns as JS numbers: sequences, clocks and times stay far below 2^53. */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

/** The unnest() columns of one insert, in order, with their array types. */
const INSERT_ARRAYS = [
  ['seq', 'bigint'],
  ['id', 'text'],
  ['thread', 'text'],
  ['actor', 'text'],
  ['act', 'text'],
  ['clock', 'bigint'],
  ['data_type', 'text'],
  ['judged_by', 'text'],
  ['namespace', 'text'],
  ['created_at', 'bigint'],
  ['parents', 'text'],
  ['body', 'text'],
  ['body_doc', 'jsonb'],
] as const;

const INSERT_COLUMNS = INSERT_ARRAYS.map(([column]) => column).join(', ');
const INSERT_RECORDS = `INSERT INTO records (${INSERT_COLUMNS})
  SELECT ${INSERT_COLUMNS.replace('body_doc', 'body_doc::jsonb')}
  FROM unnest(${INSERT_ARRAYS.map(([, type], i) => `$${i + 1}::${type === 'jsonb' ? 'text' : type}[]`).join(', ')}) AS u(${INSERT_COLUMNS})`;

const SELECT_SLOTS = `SELECT ${RECORD_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ')} FROM records r
  JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS s(actor, thread, clock) ON r.actor = s.actor AND r.thread = s.thread AND r.clock = s.clock`;

/**
 * Everything a commit writes, in one statement (one round trip while the
 * head is locked): the records, the thread summaries, the new head, and the
 * NOTIFY that PostgreSQL delivers at COMMIT.
 */
const WRITE_BATCH = `WITH inserted AS (${INSERT_RECORDS}),
  summarised AS (
    INSERT INTO threads (thread, record_count, first_seq, last_seq)
    SELECT * FROM unnest($14::text[], $15::bigint[], $16::bigint[], $17::bigint[])
    ON CONFLICT (thread) DO UPDATE SET record_count = threads.record_count + excluded.record_count, last_seq = excluded.last_seq
  ),
  advanced AS (UPDATE log_head SET seq = $18 WHERE singleton)
  SELECT pg_notify($19, $18::text)`;

function checkOptions(options: PostgresRecordStoreOptions): string {
  if (typeof options.connectionString !== 'string' || options.connectionString.length === 0) throw new TypeError('connectionString must be a non-empty string');
  const schema = options.schema ?? 'loom';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new TypeError(`schema must be a lowercase identifier, got ${JSON.stringify(schema)}`);
  return schema;
}

/** A database failure as the error a client sees: the service is unavailable, not broken. */
function unavailable(error: unknown): LoomError {
  if (error instanceof LoomError) return error;
  return new LoomError('SERVICE_UNAVAILABLE', `database unavailable: ${(error as Error).message ?? String(error)}`);
}

export class PostgresRecordStore extends RecordStoreFacade {
  readonly capabilities: StoreCapabilities = { backend: 'postgres', structuredQuery: true, queryPlan: 'sql', persistent: true, sharedLog: true, onlineBackup: true };
  readonly schema: string;
  private pool: pg.Pool | null = null;
  private listener: pg.Client | null = null;
  private readonly watchers = new Set<(sequence: number) => void>();
  private readonly leases = new Set<AdvisoryLease>();
  private readonly channel: string;
  // ---- cluster embedder (issue 36) ----
  /** Search vectors the leader computes and every server loads (postgres-shared-vectors.ts). */
  readonly sharedVectors = new PostgresSharedVectors(
    (work) => this.withClient(work),
    async (text, values) => {
      try {
        return await this.db.query(text, values);
      } catch (error) {
        throw unavailable(error);
      }
    },
  );
  // ---- end cluster embedder ----

  constructor(private readonly options: PostgresRecordStoreOptions) {
    const schema = checkOptions(options);
    super({ maxBatch: options.maxBatch });
    this.schema = schema;
    this.channel = `loom_commits_${this.schema}`;
  }

  private clientConfig(): pg.ClientConfig {
    return { connectionString: this.options.connectionString, types, options: `-c search_path=${this.schema}`, application_name: 'loom' };
  }

  protected async _open(): Promise<void> {
    const pool = new pg.Pool({ ...this.clientConfig(), max: this.options.poolSize ?? 10 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      const client = await pool.connect();
      try {
        await migrate(client, this.schema);
      } finally {
        client.release();
      }
      this.pool = pool;
      await this.listen();
    } catch (error) {
      await pool.end().catch(() => undefined);
      this.pool = null;
      throw error;
    }
  }

  /** The LISTEN connection; reconnects after a loss (watchers poll meanwhile). */
  private async listen(): Promise<void> {
    const client = new pg.Client(this.clientConfig());
    client.on('error', () => undefined);
    client.on('notification', (message) => {
      const sequence = Number(message.payload);
      if (Number.isSafeInteger(sequence)) for (const watcher of this.watchers) watcher(sequence);
    });
    client.on('end', () => {
      if (this.listener !== client) return;
      this.listener = null;
      if (this.status === 'open') setTimeout(() => void this.listen().catch(() => undefined), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    this.listener = client;
  }

  /** After the last group commit: leases go before the connections. */
  protected override async finishWrites(): Promise<void> {
    await super.finishWrites();
    await Promise.all([...this.leases].map((lease) => lease.release()));
  }

  protected async _close(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    await this.pool?.end().catch(() => undefined);
    this.pool = null;
  }

  private get db(): pg.Pool {
    if (!this.pool) throw new LoomError('SERVICE_UNAVAILABLE', 'record store is not open');
    return this.pool;
  }

  /** One group commit, serialised with every other server's by the head row lock. */
  protected _commitGroup(leaders: PreparedRecord[], slots: readonly string[]): Promise<AppendOutcome[]> {
    return this.withClient(async (client) => {
      try {
        return await this.commitInTransaction(client, leaders, slots);
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** A pooled connection for `work`; one that failed mid-work is discarded rather than reused, and a database failure answers 503. */
  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.db.connect();
    } catch (error) {
      throw unavailable(error);
    }
    let broken = false;
    try {
      return await work(client);
    } catch (error) {
      broken = !(error instanceof LoomError) && !(error instanceof TypeError);
      throw error instanceof TypeError ? error : unavailable(error);
    } finally {
      client.release(broken);
    }
  }

  /** Four round trips while the head is locked: BEGIN and lock it, look up the slots, write everything, COMMIT. */
  private async commitInTransaction(client: pg.PoolClient, leaders: PreparedRecord[], slots: readonly string[]): Promise<AppendOutcome[]> {
    // One simple-protocol round trip for both statements.
    const locked = (await client.query('BEGIN; SELECT seq FROM log_head WHERE singleton FOR UPDATE')) as unknown as pg.QueryResult<{ seq: number }>[];
    const head = locked[1]!.rows[0]!.seq;
    const holders = new Map<string, StoredRecord>();
    const { rows } = await client.query<RecordRow>(SELECT_SLOTS, [leaders.map((p) => p.record.actor), leaders.map((p) => p.record.thread), leaders.map((p) => p.record.clock)]);
    for (const row of rows) {
      const stored = rowToStored(row);
      holders.set(clockSlotKey(stored.record), stored);
    }
    const outcomes: AppendOutcome[] = [];
    const accepted: { stored: StoredRecord; namespace: string }[] = [];
    let sequence = head;
    for (let i = 0; i < leaders.length; i++) {
      const prepared = leaders[i]!;
      const holder = holders.get(slots[i]!);
      if (holder) {
        outcomes.push(holder.record.id === prepared.record.id ? { status: 'exists', stored: holder } : { status: 'duplicate_clock', existing: holder });
        continue;
      }
      const stored: StoredRecord = { sequence: ++sequence, createdAt: prepared.createdAt, record: prepared.record };
      accepted.push({ stored, namespace: prepared.namespace });
      outcomes.push({ status: 'inserted', stored });
    }
    if (accepted.length === 0) {
      await client.query('ROLLBACK');
      return outcomes;
    }
    const columns: unknown[][] = INSERT_ARRAYS.map(() => []);
    for (const { stored, namespace } of accepted) {
      const r = stored.record;
      const body = JSON.stringify(r.body);
      const values = [stored.sequence, r.id, r.thread, r.actor, r.act, r.clock, r.data_type, r.judged_by, namespace, stored.createdAt, JSON.stringify(r.parents), body, queryableBody(body)];
      values.forEach((value, i) => columns[i]!.push(value));
    }
    const threads = threadDeltas(accepted);
    // Delivered at COMMIT, to every listening server (this one included).
    await client.query(WRITE_BATCH, [...columns, threads.map((d) => d.thread), threads.map((d) => d.count), threads.map((d) => d.first), threads.map((d) => d.last), sequence, this.channel]);
    await client.query('COMMIT');
    return outcomes;
  }

  private async rows(text: string, values: unknown[]): Promise<StoredRecord[]> {
    try {
      const { rows } = await this.db.query<RecordRow>(text, values);
      return rows.map(rowToStored);
    } catch (error) {
      throw unavailable(error);
    }
  }

  protected async _readRecord(id: string): Promise<StoredRecord | undefined> {
    return (await this.rows(`SELECT ${RECORD_COLUMNS} FROM records WHERE id = $1`, [id]))[0];
  }

  protected _readThread(thread: string, page: NormalisedPage): Promise<StoredRecord[]> {
    return this.rows(`SELECT ${RECORD_COLUMNS} FROM records WHERE thread = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [thread, page.after, page.limit]);
  }

  protected _readActor(actor: string, page: NormalisedPage): Promise<StoredRecord[]> {
    return this.rows(`SELECT ${RECORD_COLUMNS} FROM records WHERE actor = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [actor, page.after, page.limit]);
  }

  protected _readChanges(after: number, limit: number): Promise<StoredRecord[]> {
    return this.rows(`SELECT ${RECORD_COLUMNS} FROM records WHERE seq > $1 ORDER BY seq LIMIT $2`, [after, limit]);
  }

  protected async _readHead(): Promise<number> {
    try {
      return (await this.db.query<{ seq: number }>('SELECT seq FROM log_head WHERE singleton')).rows[0]!.seq;
    } catch (error) {
      throw unavailable(error);
    }
  }

  protected async _listThreads(after: string, limit: number): Promise<ThreadSummary[]> {
    let rows: { thread: string; n: number; first: number; last: number }[];
    try {
      rows = (
        await this.db.query<{ thread: string; n: number; first: number; last: number }>(
          'SELECT thread, record_count AS n, first_seq AS first, last_seq AS last FROM threads WHERE thread > $1 ORDER BY thread LIMIT $2',
          [after, limit],
        )
      ).rows;
    } catch (error) {
      throw unavailable(error);
    }
    return rows.map((r) => ({ thread: r.thread, recordCount: r.n, firstSequence: r.first, lastSequence: r.last }));
  }

  protected _query(query: ParsedQuery): Promise<Omit<QueryResult, 'capped'>> {
    return this.withClient((client) => runQuery(client, query));
  }

  /**
   * The whole schema (records, blobs, shared slots, vectors) as a pg_dump archive, from one snapshot: a
   * repeatable-read transaction exports its snapshot, reads the head in it, and pg_dump dumps exactly what
   * that transaction sees while writers go on. `postgres.json` beside it names the schema for the restore.
   */
  protected override async _backup(destination: string): Promise<StoreBackup> {
    const pgDump = findPgTool('pg_dump');
    if (!pgDump) throw new LoomError('BACKUP_NOT_SUPPORTED', 'pg_dump is not installed on this server (Debian: apt-get install postgresql-client); loom export works without it');
    return this.withClient(async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      try {
        const snapshot = (await client.query<{ snapshot: string }>('SELECT pg_export_snapshot() AS snapshot')).rows[0]!.snapshot;
        const head = (await client.query<{ seq: number }>('SELECT seq FROM log_head WHERE singleton')).rows[0]!.seq;
        const { url, env } = connectionForTool(this.options.connectionString);
        try {
          await runPgTool(pgDump, ['--format=custom', `--schema=${this.schema}`, `--snapshot=${snapshot}`, '--no-owner', '--no-privileges', `--file=${join(destination, 'loom.pgdump')}`, `--dbname=${url}`], env);
        } catch (error) {
          throw new LoomError('SERVICE_UNAVAILABLE', `the backup failed: ${(error as Error).message}`);
        }
        await writeFile(join(destination, 'postgres.json'), `${JSON.stringify({ schema: this.schema, dump: 'loom.pgdump' })}\n`);
        // Sequences are dense (a rolled-back batch gives its numbers back), so the head is also the count.
        return { watermark: head, records: head, path: '.' };
      } finally {
        await client.query('COMMIT');
      }
    });
  }

  /** Refreshes the planner's statistics and reclaims dead rows (VACUUM cannot run in a transaction, so through the pool). */
  protected override async _optimize(): Promise<string> {
    const started = Date.now();
    await this.db.query('VACUUM (ANALYZE) records, threads');
    return `postgres: VACUUM (ANALYZE) of records and threads in ${Date.now() - started} ms`;
  }

  watchCommits(listener: (sequence: number) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  async readCheckpoint(name: string): Promise<number | null> {
    this.assertOpen();
    try {
      const { rows } = await this.db.query<{ sequence: number }>('SELECT sequence FROM loop_checkpoints WHERE name = $1', [name]);
      return rows[0]?.sequence ?? null;
    } catch (error) {
      throw unavailable(error);
    }
  }

  async writeCheckpoint(name: string, sequence: number): Promise<void> {
    this.assertOpen();
    try {
      await this.db.query(
        'INSERT INTO loop_checkpoints (name, sequence) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET sequence = GREATEST(loop_checkpoints.sequence, excluded.sequence)',
        [name, sequence],
      );
    } catch (error) {
      throw unavailable(error);
    }
  }

  async readSlot(name: string): Promise<string | null> {
    this.assertOpen();
    try {
      const { rows } = await this.db.query<{ value: string }>('SELECT value FROM store_slots WHERE name = $1 AND (expires_at IS NULL OR expires_at > $2)', [name, Date.now()]);
      return rows[0]?.value ?? null;
    } catch (error) {
      throw unavailable(error);
    }
  }

  async writeSlot(name: string, value: string | null, expiresAt?: number): Promise<void> {
    this.assertOpen();
    try {
      if (value === null) {
        await this.db.query('DELETE FROM store_slots WHERE name = $1', [name]);
        return;
      }
      // Expiring slots are few (challenges): clearing the expired ones as another is written keeps the table small without a sweeper.
      if (expiresAt !== undefined) await this.db.query('DELETE FROM store_slots WHERE expires_at IS NOT NULL AND expires_at <= $1', [Date.now()]);
      await this.db.query(
        'INSERT INTO store_slots (name, value, expires_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
        [name, value, expiresAt ?? null],
      );
    } catch (error) {
      throw unavailable(error);
    }
  }

  async takeSlot(name: string): Promise<string | null> {
    this.assertOpen();
    try {
      // One statement: PostgreSQL lets exactly one of concurrent deletes of the row return it.
      const { rows } = await this.db.query<{ value: string; expires_at: string | null }>('DELETE FROM store_slots WHERE name = $1 RETURNING value, expires_at', [name]);
      const row = rows[0];
      if (!row || (row.expires_at !== null && Number(row.expires_at) <= Date.now())) return null;
      return row.value;
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Blobs go with the records: in this database, shared by every server of the log. */
  blobStore(): BlobStore {
    return new PostgresBlobStore(() => this.db, this.schema);
  }

  /** A session advisory lock on a pooled connection held for the duration of `work`. */
  withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    this.assertOpen();
    return this.withClient(async (client) => {
      await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`loom:${this.schema}:lock:${key}`]);
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`loom:${this.schema}:lock:${key}`]);
      }
    });
  }

  lease(name: string, onChange: (held: boolean) => void): StoreLease {
    this.assertOpen();
    const lease = new AdvisoryLease(this.clientConfig(), `loom:${this.schema}:${name}`, this.options.leaseCheckMs ?? 1000, onChange, () => this.leases.delete(lease));
    this.leases.add(lease);
    lease.start();
    return lease;
  }
}

export type { LoomRecord };
