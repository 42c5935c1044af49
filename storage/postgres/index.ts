/** The PostgreSQL driver (storage/postgres): a shared log several Loom servers can serve together. */
export { PostgresRecordStore, type PostgresRecordStoreOptions } from './postgres-record-store.js';
export { SCHEMA_VERSION } from './migrations.js';
