/**
 * The embedding API: `import { ... } from '@loom-ledger/server'`. It loads no storage
 * driver and no plugin: drivers, plugins, the compliance suite and the SDK
 * have their own entry points (`loom/storage/sqlite`, `loom/storage/level`,
 * `loom/plugins/ledger`, `loom/plugins/auth`, `loom/storage/compliance`,
 * `loom/sdk`), so an embedder loads only what it uses. tsyringe needs the
 * reflect polyfill before it loads, so this entry point loads it itself.
 */
import 'reflect-metadata';
export * from './records/index.js';
export * from './errors/index.js';
export * from './folds/index.js';
export * from './access/index.js';
export * from './engine/index.js';
export * from './plugin/index.js';
export { token, resolve, resolveAll, bindValue, bindFactory, type Token } from './di/token.js';
export { createLoom, type Loom, type LoomOptions } from './server/create-loom.js';
export { ServerInfo, API_VERSION, SPEC_VERSION } from './server/server-info.js';
export { LOOM_VERSION } from './server/version.js';
export * from '../storage/contract/index.js';
