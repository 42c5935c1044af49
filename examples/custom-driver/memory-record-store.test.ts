import { runStoreCompliance } from '../../storage/compliance/index.js';
import { MemoryRecordStore } from './memory-record-store.js';

runStoreCompliance({
  name: 'MemoryRecordStore',
  // Nothing to put on disk: each harness is just a fresh instance. No reopen
  // and no crash options, since the manifest says `persistent: false`.
  factory: async () => {
    const store = new MemoryRecordStore();
    await store.open();
    return { store, cleanup: () => store.close() };
  },
});
