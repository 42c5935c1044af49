export { LevelRecordStore, type LevelRecordStoreOptions } from './level-record-store.js';
