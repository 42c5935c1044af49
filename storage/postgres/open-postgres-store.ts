/**
 * The driver's `OpenStoreAt` for the compliance suite and its crash child:
 * the store of `location` is a schema, named after the location, in the
 * database at LOOM_TEST_DATABASE_URL (the test process sets it after
 * starting a throwaway cluster; the crash child inherits it).
 */
import { createHash } from 'node:crypto';
import type { RecordStore } from '../contract/record-store.js';
import { PostgresRecordStore } from './postgres-record-store.js';

export function schemaFor(location: string): string {
  return `store_${createHash('sha256').update(location).digest('hex').slice(0, 20)}`;
}

export async function openStore(location: string): Promise<RecordStore> {
  const connectionString = process.env['LOOM_TEST_DATABASE_URL'];
  if (!connectionString) throw new Error('LOOM_TEST_DATABASE_URL is not set');
  const store = new PostgresRecordStore({ connectionString, schema: schemaFor(location), poolSize: 4, leaseCheckMs: 200 });
  await store.open();
  return store;
}

/**
 * The compliance suite's `openBackup`: the dump `backup()` wrote into `location` restored (pg_restore) into a
 * database of its own on the same cluster, under the schema it came from, and opened there.
 */
export async function openBackupCopy(location: string): Promise<RecordStore> {
  const connectionString = process.env['LOOM_TEST_DATABASE_URL'];
  if (!connectionString) throw new Error('LOOM_TEST_DATABASE_URL is not set');
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { restorePostgresDump } = await import('./pg-tools.js');
  const { default: pg } = await import('pg');
  const described = JSON.parse(await readFile(join(location, 'postgres.json'), 'utf8')) as { schema: string; dump: string };
  const database = `copy_${createHash('sha256').update(location).digest('hex').slice(0, 20)}`;
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const url = new URL(connectionString);
  url.pathname = `/${database}`;
  await restorePostgresDump(join(location, described.dump), url.toString(), described.schema);
  const store = new PostgresRecordStore({ connectionString: url.toString(), schema: described.schema, poolSize: 4, leaseCheckMs: 200 });
  await store.open();
  return store;
}
