/**
 * PostgreSQL's own client tools (pg_dump, pg_restore) for the driver's
 * online backup and `loom restore`. A logical dump taken from one exported
 * snapshot is the database's own answer to "a consistent copy while writes
 * go on"; re-implementing it row by row would only be slower and less
 * faithful (blobs, vectors and shared slots live in the same schema).
 *
 * The tools are looked up on PATH, then under Debian's
 * /usr/lib/postgresql/<version>/bin, newest first (pg_dump must be at least
 * as new as the server). The connection's password never goes on a command
 * line, where `ps` would show it: it is passed as PGPASSWORD.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export type PgTool = 'pg_dump' | 'pg_restore';

/** The newest `tool` found, or null. */
export function findPgTool(tool: PgTool): string | null {
  const root = '/usr/lib/postgresql';
  const versioned = existsSync(root)
    ? readdirSync(root)
        .filter((version) => /^\d+$/.test(version) && existsSync(join(root, version, 'bin', tool)))
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => join(root, version, 'bin', tool))
    : [];
  // Debian's /usr/bin/pg_dump is a wrapper that picks a version by itself; the versioned binary is explicit.
  if (versioned.length > 0) return versioned[0]!;
  for (const directory of (process.env['PATH'] ?? '').split(delimiter)) {
    if (directory && existsSync(join(directory, tool))) return join(directory, tool);
  }
  return null;
}

/** The URL without its password, and the environment that carries the password instead. */
export function connectionForTool(connectionString: string): { url: string; env: NodeJS.ProcessEnv } {
  let parsed: URL;
  try {
    parsed = new URL(connectionString);
  } catch {
    return { url: connectionString, env: {} };
  }
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { url: parsed.toString(), env: password ? { PGPASSWORD: password } : {} };
}

/** Runs a tool to completion; rejects with the end of its stderr when it fails. */
export function runPgTool(path: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.split('/').pop()} exited with ${signal ?? code}: ${stderr.trim() || 'no message'}`));
    });
  });
}

/**
 * Restores a dump taken by the driver's backup into `connectionString`'s database, in one transaction, under
 * the schema it was taken from (pg_restore cannot rename a schema). Refuses a database where that schema
 * already holds tables: a restore never mixes two logs. Resolves with the restored log's head.
 */
export async function restorePostgresDump(dumpPath: string, connectionString: string, schema: string): Promise<number> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`the backup names an invalid schema ${JSON.stringify(schema)}`);
  const pgRestore = findPgTool('pg_restore');
  if (!pgRestore) throw new Error('pg_restore is not installed here (Debian: apt-get install postgresql-client)');
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString, application_name: 'loom restore' });
  await client.connect();
  try {
    const tables = await client.query<{ n: string }>('SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1', [schema]);
    if (Number(tables.rows[0]!.n) > 0) throw new Error(`schema ${schema} of that database already holds a log: restore into a database without it (or drop it first)`);
    // An empty schema of that name (made by hand for the restore) is replaced by the dump's.
    await client.query(`DROP SCHEMA IF EXISTS ${schema}`);
    const { url, env } = connectionForTool(connectionString);
    await runPgTool(pgRestore, ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', `--dbname=${url}`, dumpPath], env);
    const head = await client.query<{ seq: string }>(`SELECT seq FROM ${schema}.log_head WHERE singleton`);
    return Number(head.rows[0]!.seq);
  } finally {
    await client.end();
  }
}
