/**
 * Opens a SqliteRecordStore kept in `location` (a directory; the file is
 * `loom.db` inside it, full durability): the driver's `OpenStoreAt` for the
 * compliance factory, and the module the crash suite imports in its child
 * process, which is why it is not in the test file.
 */
import { join } from 'node:path';
import type { RecordStore } from '../contract/record-store.js';
import { SqliteRecordStore } from './sqlite-record-store.js';

export async function openStore(location: string): Promise<RecordStore> {
  const store = new SqliteRecordStore({ path: join(location, 'loom.db') });
  await store.open();
  return store;
}
