/**
 * The embedding API: `import { ... } from 'loom'`. Drivers, the compliance
 * suite and the SDK have their own entry points (`loom/storage/sqlite`,
 * `loom/storage/level`, `loom/storage/compliance`, `loom/sdk`), so an
 * embedder loads only what it uses.
 */
export * from './records/index.js';
export * from './errors/index.js';
export * from './folds/index.js';
export * from './engine/index.js';
export * from './plugin/index.js';
export { token, resolve, resolveAll, bindValue, bindFactory, type Token } from './di/token.js';
export { createLoom, STORE_BACKENDS, type Loom, type LoomOptions, type StoreBackend } from './server/compose.js';
export { ServerInfo, API_VERSION, SPEC_VERSION } from './server/server-info.js';
export { LOOM_VERSION } from './server/version.js';
export * from '../storage/contract/index.js';
