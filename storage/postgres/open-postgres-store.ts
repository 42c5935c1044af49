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
