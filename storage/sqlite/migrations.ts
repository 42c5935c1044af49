/**
 * Schema versions, applied in order and recorded in `PRAGMA user_version`.
 * Append a migration to change the schema; never edit a released one.
 */
import { LoomError } from '../../core/errors/loom-error.js';
import type { SqliteDatabase } from './sqlite-database.js';

const MIGRATIONS: readonly string[] = [
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
];

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
      await session.exec(MIGRATIONS[version]!);
      // PRAGMA takes no bind parameters; the value is this file's own integer constant.
      await session.exec(`PRAGMA user_version = ${version + 1}`);
    }
  });
}
