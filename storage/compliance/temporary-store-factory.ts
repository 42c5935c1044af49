/**
 * The usual factory for a driver that keeps its data in a directory: each
 * call makes a fresh temporary directory, opens a store there, and cleans up
 * after itself. The same `OpenStoreAt` can be exported for the crash suite.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordStore } from '../contract/record-store.js';
import type { OpenStoreAt, StoreHarness } from './compliance-options.js';

/** A fresh empty directory under the OS temp dir; the caller removes it. */
export function makeTemporaryLocation(prefix = 'loom-store-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function temporaryStoreFactory(openStore: OpenStoreAt, prefix?: string): () => Promise<StoreHarness> {
  return async () => {
    const location = await makeTemporaryLocation(prefix);
    const opened: RecordStore[] = [];
    const open = async (): Promise<RecordStore> => {
      const store = await openStore(location);
      opened.push(store);
      return store;
    };
    let store: RecordStore;
    try {
      store = await open();
    } catch (error) {
      await rm(location, { recursive: true, force: true });
      throw error;
    }
    return {
      store,
      reopen: open,
      async cleanup() {
        // Close in reverse so a later instance never outlives an earlier one's files.
        for (const each of opened.reverse()) await each.close().catch(() => undefined);
        await rm(location, { recursive: true, force: true, maxRetries: 3 });
      },
    };
  };
}
