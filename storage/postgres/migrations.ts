/**
 * Schema versions, applied in order at open and recorded in
 * `schema_migrations`. Two servers starting at once are safe: migration runs
 * in one transaction under a transaction-level advisory lock keyed on the
 * schema, so the second waits, then finds everything applied. Append a
 * migration to change the schema; never edit a released one.
 *
 * Text columns use the "C" collation: byte order of UTF-8, which is code
 * point order, the order the reference filter and sort define.
 */
import type pg from 'pg';
import { LoomError } from '../../core/errors/loom-error.js';

const MIGRATIONS: readonly string[] = [
  // 1: records, thread summaries, and the log head. `seq` is dense and in
  // commit order: a writer locks the head row, numbers its batch after it,
  // and the lock is held until its COMMIT (postgres-record-store.ts).
  `CREATE TABLE records (
     seq        bigint  PRIMARY KEY,
     id         text    COLLATE "C" NOT NULL UNIQUE,
     thread     text    COLLATE "C" NOT NULL,
     actor      text    COLLATE "C" NOT NULL,
     act        text    COLLATE "C" NOT NULL,
     clock      bigint  NOT NULL,
     data_type  text    COLLATE "C" NOT NULL,
     judged_by  text    COLLATE "C",
     namespace  text    COLLATE "C" NOT NULL,
     created_at bigint  NOT NULL,
     parents    text    NOT NULL,
     body       text    NOT NULL,
     body_doc   jsonb,
     CONSTRAINT records_slot UNIQUE (actor, thread, clock)
   );
   CREATE INDEX records_thread ON records (thread, seq);
   CREATE INDEX records_actor ON records (actor, seq);
   CREATE INDEX records_body ON records USING gin (body_doc jsonb_path_ops);
   CREATE TABLE threads (
     thread       text   COLLATE "C" PRIMARY KEY,
     record_count bigint NOT NULL,
     first_seq    bigint NOT NULL,
     last_seq     bigint NOT NULL
   );
   CREATE TABLE log_head (
     singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
     seq       bigint  NOT NULL
   );
   INSERT INTO log_head (singleton, seq) VALUES (true, 0);`,
  // 2: how far each singleton loop (RECONCILE) has handled the log, handed from leader to leader.
  `CREATE TABLE loop_checkpoints (
     name     text   COLLATE "C" PRIMARY KEY,
     sequence bigint NOT NULL
   );`,
  // 3: small values that belong to the log rather than to one server (a federation pair's cursor and sealed peer token).
  `CREATE TABLE store_slots (
     name  text COLLATE "C" PRIMARY KEY,
     value text NOT NULL
   );`,
  // 4: slots that expire (single-use challenges shared by every server): unset once expires_at (Unix ms) has passed.
  `ALTER TABLE store_slots ADD COLUMN expires_at bigint;
   CREATE INDEX store_slots_expiry ON store_slots (expires_at) WHERE expires_at IS NOT NULL;`,
  // 5: data-plane blobs shared by every server (postgres-blob-store.ts): a row per blob, its bytes in chunks
  // (`staging` ids name a put still streaming in), and holds that keep content a record is about to name.
  `CREATE TABLE blobs (
     hash       text   COLLATE "C" PRIMARY KEY,
     size       bigint  NOT NULL,
     chunk_size integer NOT NULL,
     stored_at  bigint  NOT NULL
   );
   CREATE TABLE blob_chunks (
     owner text    COLLATE "C" NOT NULL,
     part  integer NOT NULL,
     bytes bytea   NOT NULL,
     PRIMARY KEY (owner, part)
   );
   ALTER TABLE blob_chunks ALTER COLUMN bytes SET STORAGE EXTERNAL;
   CREATE TABLE blob_staging (
     id         text   COLLATE "C" PRIMARY KEY,
     started_at bigint NOT NULL
   );
   CREATE TABLE blob_holds (
     id         text   COLLATE "C" PRIMARY KEY,
     hash       text   COLLATE "C" NOT NULL,
     expires_at bigint NOT NULL
   );
   CREATE INDEX blob_holds_hash ON blob_holds (hash);`,
  // 6: vectors the leader computed
  // for semantic search, per model and record sequence, and how far each model has examined the log.
  `CREATE TABLE search_vectors (
     model  text   COLLATE "C" NOT NULL,
     seq    bigint NOT NULL,
     meta   text   NOT NULL,
     vector bytea  NOT NULL,
     PRIMARY KEY (model, seq)
   );
   CREATE TABLE search_vector_progress (
     model    text     COLLATE "C" PRIMARY KEY,
     frontier bigint   NOT NULL,
     dims     integer  NOT NULL,
     failed   bigint[] NOT NULL DEFAULT '{}'
   );`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Creates the schema if needed and brings it to SCHEMA_VERSION; refuses a newer one. */
export async function migrate(client: pg.ClientBase, schema: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`loom:migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SET LOCAL search_path TO "${schema}"`);
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    const current = rows[0]?.v ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new LoomError('INTERNAL', `database schema "${schema}" is at version ${current}, newer than this build understands (${SCHEMA_VERSION})`);
    }
    for (let version = current; version < SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version]!);
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version + 1]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
