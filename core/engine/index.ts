export * from './broadcast.js';
export * from './engine-loop.js';
export * from './engine-config.js';
export * from './fold-engine.js';
export * from './ingest.js';
export * from './loom-engine.js';
export * from './native-hash.js';
export * from './record-reader.js';
