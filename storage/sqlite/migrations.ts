/**
 * Schema versions, applied in order and recorded in `PRAGMA user_version`.
 * Append a migration to change the schema; never edit a released one.
 */
import { LoomError } from '../../core/errors/loom-error.js';
import { INSERT_COLUMNS, RECORD_COLUMNS, insertValues, rowPlaceholders, rowToStored, type RecordRow } from './record-row.js';
import type { BindValue, SqliteDatabase, SqliteSession } from './sqlite-database.js';

/** A migration: SQL run as one script, or a step that needs JS (computing index keys). */
type Migration = string | ((session: SqliteSession) => Promise<void>);

const MIGRATIONS: readonly Migration[] = [
  // 1: the records table. `seq` is the global sequence; AUTOINCREMENT keeps a
  // sequence from ever being reused, even past a rolled-back batch.
  `CREATE TABLE records (
     seq        INTEGER PRIMARY KEY AUTOINCREMENT,
     id         TEXT    NOT NULL UNIQUE,
     thread     TEXT    NOT NULL,
     actor      TEXT    NOT NULL,
     act        TEXT    NOT NULL,
     clock      INTEGER NOT NULL,
     data_type  TEXT    NOT NULL,
     judged_by  TEXT,
     namespace  TEXT    NOT NULL,
     created_at INTEGER NOT NULL,
     parents    TEXT    NOT NULL,
     body       TEXT    NOT NULL,
     UNIQUE (actor, thread, clock)
   );
   CREATE INDEX records_thread ON records (thread, seq);
   CREATE INDEX records_actor ON records (actor, seq);
   CREATE INDEX records_thread_act ON records (thread, act, seq);`,
  // 2: drop (thread, act, seq). Every index costs one more random page per
  // row at each group commit (the ingest benchmark measured about 20%), and
  // thread + act lookups are served as well by (thread, seq) then a filter
  // on the thread's own records.
  `DROP INDEX IF EXISTS records_thread_act;`,
  // 3: compact index keys (index-keys.ts) and a per-thread summary table. With the ingest journal,
  // records are applied in batches of thousands; four indexes over 60-70 character strings made
  // each batch rewrite most of their pages. Rows are copied in sequence order with their keys.
  migrateToCompactKeys,
];

const COMPACT_SCHEMA = `
  CREATE TABLE records_v3 (
     seq        INTEGER PRIMARY KEY,
     id         TEXT    NOT NULL,
     id_key     INTEGER NOT NULL,
     thread     TEXT    NOT NULL,
     thread_key INTEGER NOT NULL,
     actor      TEXT    NOT NULL,
     actor_key  INTEGER NOT NULL,
     act        TEXT    NOT NULL,
     clock      INTEGER NOT NULL,
     data_type  TEXT    NOT NULL,
     judged_by  TEXT,
     namespace  TEXT    NOT NULL,
     created_at INTEGER NOT NULL,
     parents    TEXT    NOT NULL,
     body       TEXT    NOT NULL
   );
  CREATE TABLE threads (
     thread       TEXT    PRIMARY KEY,
     record_count INTEGER NOT NULL,
     first_seq    INTEGER NOT NULL,
     last_seq     INTEGER NOT NULL
   ) WITHOUT ROWID;`;

const COMPACT_INDEXES = `
  CREATE INDEX records_id ON records (id_key);
  CREATE INDEX records_thread ON records (thread_key, seq);
  CREATE INDEX records_actor ON records (actor_key, seq);
  CREATE INDEX records_slot ON records (actor_key, thread_key, clock);`;

const COPY_CHUNK = 1000;

async function migrateToCompactKeys(session: SqliteSession): Promise<void> {
  await session.exec(COMPACT_SCHEMA);
  let after = 0;
  for (;;) {
    const rows = await session.all<RecordRow & { namespace: string }>(
      `SELECT ${RECORD_COLUMNS}, namespace FROM records WHERE seq > ? ORDER BY seq LIMIT ?`,
      [after, COPY_CHUNK],
    );
    if (rows.length === 0) break;
    const params: BindValue[] = [];
    for (const row of rows) {
      const stored = rowToStored(row);
      insertValues({ stored, namespace: row.namespace }, params);
    }
    await session.run(`INSERT INTO records_v3 (${INSERT_COLUMNS}) VALUES ${rowPlaceholders(rows.length)}`, params);
    after = rows[rows.length - 1]!.seq;
  }
  await session.exec(`DROP TABLE records; ALTER TABLE records_v3 RENAME TO records; ${COMPACT_INDEXES}
    INSERT INTO threads (thread, record_count, first_seq, last_seq)
      SELECT thread, COUNT(*), MIN(seq), MAX(seq) FROM records GROUP BY thread;`);
}

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the database to SCHEMA_VERSION in one transaction; refuses a newer schema. */
export async function migrate(db: SqliteDatabase): Promise<void> {
  await db.transaction('IMMEDIATE', async (session) => {
    const row = await session.get<{ user_version: number }>('PRAGMA user_version');
    const current = row?.user_version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new LoomError('INTERNAL', `database schema version ${current} is newer than this build understands (${SCHEMA_VERSION})`);
    }
    for (let version = current; version < SCHEMA_VERSION; version++) {
      const migration = MIGRATIONS[version]!;
      if (typeof migration === 'string') await session.exec(migration);
      else await migration(session);
      // PRAGMA takes no bind parameters; the value is this file's own integer constant.
      await session.exec(`PRAGMA user_version = ${version + 1}`);
    }
  });
}
