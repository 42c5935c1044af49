/**
 * Adds the did:sync directory to the federation plugin's scope: the
 * `directory_enabled` configuration topic, the fold, the ingest gate, the
 * directory thread as a system thread, the six routes, and the capability
 * `federation.directory`, true exactly while the directory is on (it follows
 * the configuration record, hot). Everything goes through the kernel's verbs:
 * records in through the gate, state through the fold, operations out
 * through the record reader. No store handle.
 */
import { resolve, bindValue } from '../../../core/di/token.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import { Config } from '../../../core/folds/config/config-topic.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import { directoryEnabled, directoryEnabledTopic } from './directory-enabled-topic.js';
import { directoryFold, summarize } from './directory-fold.js';
import { directoryGate } from './directory-gate.js';
import { DirectoryService, DirectoryServiceToken } from './directory-service.js';
import { DIRECTORY_THREAD } from './directory-thread.js';
import { createDirectoryIdentity } from './routes/create-directory-identity.js';
import { getDirectoryDidDocument } from './routes/get-directory-did-document.js';
import { listDirectoryOperations } from './routes/list-directory-operations.js';
import { resolveDirectoryHandle } from './routes/resolve-directory-handle.js';
import { revokeDirectoryIdentity } from './routes/revoke-directory-identity.js';
import { updateDirectoryIdentity } from './routes/update-directory-identity.js';

export const DIRECTORY_ROUTES = [createDirectoryIdentity, updateDirectoryIdentity, revokeDirectoryIdentity, getDirectoryDidDocument, listDirectoryOperations, resolveDirectoryHandle] as const;

export function registerDirectory(scope: PluginScope, instanceDid: string): void {
  scope.configTopic(directoryEnabledTopic);
  const config = scope.container.isRegistered(Config as symbol, true) ? resolve(scope.container, Config) : null;
  const enabled = directoryEnabled(config);
  scope.systemThread(DIRECTORY_THREAD);
  const fold = scope.fold(directoryFold);
  scope.ingestGate(directoryGate(() => fold.state()));
  const service = new DirectoryService({ writer: resolve(scope.container, RecordWriterToken), reader: resolve(scope.container, RecordReaderToken), state: () => fold.state(), enabled, instanceDid });
  bindValue(scope.container, DirectoryServiceToken, service);
  for (const route of DIRECTORY_ROUTES) scope.route(route);
  const flag = () => scope.capability('federation.directory', enabled());
  // The configuration is readable once the engine started; until then the flag says off.
  scope.capability('federation.directory', false);
  let unwatch = () => {};
  scope.onStart(() => {
    flag();
    if (config) unwatch = config.watch(directoryEnabledTopic, flag);
  });
  scope.onStop(() => unwatch());
  scope.describe('health', 'directory', () => ({ enabled: enabled(), ...summarize(fold.state()) }));
}
