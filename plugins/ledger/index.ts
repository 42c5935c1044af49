/**
 * The ledger plugin: records, threads, folds, configuration and the instance
 * chrome over the core engine. Every read goes through the caller-aware
 * RecordReader and every write through the ingest gates with the caller.
 */
import { ConsumerRegistryToken } from '../../core/engine/log-consumer.js';
import { bindValue, resolve } from '../../core/di/token.js';
import { EngineStatusToken } from '../../core/engine/engine-status.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { LedgerOptions, LedgerOptionsToken } from './config.js';
import { getCapabilities } from './routes/get-capabilities.js';
import { getConfig } from './routes/get-config.js';
import { getConfigTopic } from './routes/get-config-topic.js';
import { getGlobalFold } from './routes/get-global-fold.js';
import { getHealth, getLiveness, getReadiness } from './routes/get-health.js';
import { StorageProbe } from './storage-probe.js';
import { StorageProbeToken } from './storage-probe-token.js';
import { WatchSlots, WatchSlotsToken } from './watch-slots.js';
import { getRecord } from './routes/get-record.js';
import { getInstanceBootstrap } from './routes/get-instance-bootstrap.js';
import { getInstanceShell } from './routes/get-instance-shell.js';
import { createThread } from './routes/create-thread.js';
import { archiveThread } from './routes/archive-thread.js';
import { writeConfigTopic } from './routes/write-config-topic.js';
import { InstanceChromeToken, instanceChromeFold } from './instance-chrome-fold.js';
import { getServiceDiscovery } from './routes/get-service-discovery.js';
import { getThreadFold } from './routes/get-thread-fold.js';
import { getThreadParticipants } from './routes/get-thread-participants.js';
import { getThreadState } from './routes/get-thread-state.js';
import { ingestRecord } from './routes/ingest-record.js';
import { ingestBatch } from './routes/ingest-batch.js';
import { listFolds } from './routes/list-folds.js';
import { listRecords } from './routes/list-records.js';
import { listThreadRecords } from './routes/list-thread-records.js';
import { listThreads } from './routes/list-threads.js';
import { projectThread } from './routes/project-thread.js';
import { queryRecords } from './routes/query-records.js';
import { watchThread } from './routes/watch-thread.js';

export { LedgerOptions, LedgerOptionsToken } from './config.js';
// The thread-watch feed and its cap, for other plugins' streams of one thread (a run's stream).
export { watchThread as openThreadWatch } from './thread-watch.js';
export { WatchSlotsToken, type WatchSlots } from './watch-slots.js';

export const LEDGER_ROUTES = [
  getHealth,
  getLiveness,
  getReadiness,
  getServiceDiscovery,
  getCapabilities,
  ingestRecord,
  ingestBatch,
  getRecord,
  listRecords,
  queryRecords,
  listThreads,
  createThread,
  archiveThread,
  listThreadRecords,
  getThreadState,
  getThreadParticipants,
  projectThread,
  watchThread,
  listFolds,
  getGlobalFold,
  getThreadFold,
  getConfig,
  getConfigTopic,
  writeConfigTopic,
  getInstanceBootstrap,
  getInstanceShell,
] as const;

export const ledgerPlugin = definePlugin({
  name: 'ledger',
  tags: {
    ledger: 'Records, threads and their folds: ingest, read, query, watch, configuration and health.',
  },
  version: '1.0.0',
  options: LedgerOptions,
  register(scope, options) {
    scope.expose(LedgerOptionsToken, options);
    const watchers = new WatchSlots(options.maxWatchers);
    // Shared with other plugins' feeds of one thread (a run's stream): one cap over every open feed.
    scope.expose(WatchSlotsToken, watchers);
    scope.describe('health', 'watchers', () => ({ open: watchers.open, max: watchers.max }));
    const consumers = resolve(scope.container, ConsumerRegistryToken);
    scope.describe('health', 'consumers', () => consumers.list());
    bindValue(scope.container, StorageProbeToken, new StorageProbe(resolve(scope.container, EngineStatusToken), resolve(scope.container, ServerInfo).dataDir));
    for (const route of LEDGER_ROUTES) scope.route(route);
    // A thread watch resumes from the event id a browser's EventSource sends back.
    scope.corsHeaders(['last-event-id']);
    // The chrome is the instance's public face (GET /v1/instance/bootstrap answers anyone): its routes read the ledger's own fold.
    bindValue(scope.container, InstanceChromeToken, scope.fold(instanceChromeFold));
    for (const flag of ['records.ingest', 'records.read', 'records.query', 'threads.read', 'threads.project', 'threads.watch', 'folds.read', 'config.read', 'config.write', 'threads.create', 'threads.archive', 'instance.chrome', 'namespaces.narrowing']) {
      scope.capability(flag, true);
    }
  },
});
