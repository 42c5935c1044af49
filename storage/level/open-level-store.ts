/**
 * Opens a LevelRecordStore kept in `location` (full durability): the driver's
 * `OpenStoreAt` for the compliance factory, and the module the crash suite
 * imports in its child process, which is why it is not in the test file.
 */
import type { RecordStore } from '../contract/record-store.js';
import { LevelRecordStore } from './level-record-store.js';

export async function openStore(location: string): Promise<RecordStore> {
  const store = new LevelRecordStore({ path: location });
  await store.open();
  return store;
}
