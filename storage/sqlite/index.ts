export { SqliteRecordStore, type SqliteRecordStoreOptions } from './sqlite-record-store.js';
export { SCHEMA_VERSION } from './migrations.js';
