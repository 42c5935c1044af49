/**
 * The composition root of the library: a store instance and a plugin list →
 * container → engine → plugins → server. It names no driver and no plugin;
 * an application chooses them (the reference server's is
 * server/reference-loom.ts). `createLoom` builds everything without
 * listening; `start()` opens storage, rebuilds folds, runs the plugins'
 * start hooks, starts the loops and listens; `stop()` reverses that.
 */
import { BackupState, BackupStateToken } from '../plugin/backup-state.js';
import type Hapi from '@hapi/hapi';
import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import { Authenticator } from '../access/authenticator.js';
import { CorsPolicy } from '../access/cors-policy.js';
import { bindValue } from '../di/token.js';
import { RecordBusToken } from '../engine/broadcast.js';
import { FoldEngineToken } from '../engine/fold-engine.js';
import { IngestorToken } from '../engine/ingest.js';
import { LoomEngine, LoomEngineToken } from '../engine/loom-engine.js';
import { EngineStatusToken, engineStatus } from '../engine/engine-status.js';
import { ConfigTopicsToken } from '../engine/config-topics.js';
import { ConsumerRegistryToken } from '../engine/log-consumer.js';
import { LogCriticalSection, LogCriticalSectionToken } from '../engine/log-critical-section.js';
import { RecordReaderToken } from '../engine/record-reader.js';
import { RecordWriterToken } from '../engine/record-writer.js';
import { ClockToken, type Clock } from '../engine/clock.js';
import { Config } from '../folds/config/config-topic.js';
import { CapabilityFlags, CapabilityFlagsToken } from '../plugin/capabilities.js';
import { DiscoveryFacts, DiscoveryFactsToken } from '../plugin/discovery-facts.js';
import { jsonLogger, Logger } from '../plugin/logger.js';
import type { PluginRegistration } from '../plugin/plugin.js';
import { registerPlugins } from '../plugin/plugin-host.js';
import { RouteCatalog, RouteCatalogToken } from '../plugin/route-catalog.js';
import { Loopback, LoopbackToken } from '../plugin/loopback.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import { createServer } from './create-server.js';
import { mountStaticSites } from './static-sites.js';
import type { StaticSite } from '../plugin/static-site.js';
import { DEFAULT_CONNECTION_LIMITS } from './connection-limits.js';
import { API_VERSION, ServerInfo, SPEC_VERSION } from './server-info.js';
import type { RequestObserver } from '../plugin/request-observer.js';
import { LOOM_VERSION } from './version.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export interface LoomOptions {
  /** The record store (a driver instance, not yet opened). */
  readonly store: RecordStore;
  /** The plugins, each optionally with its options; dependencies are ordered by the host. */
  readonly plugins?: readonly PluginRegistration[];
  /** Where persistent plugin state lives (`<dataDir>/plugins/<name>/`); null for none. @default null */
  readonly dataDir?: string | null;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 9100 */
  readonly port?: number;
  /** Largest request body in bytes. @default 1048576 */
  readonly maxBodyBytes?: number;
  /** Time to receive a request's line and headers, in ms; past it 408 REQUEST_TIMEOUT. @default 15000 */
  readonly headersTimeoutMs?: number;
  /**
   * Time a request body may take once its headers are in, in ms, plus one
   * second per `minBodyBytesPerSecond` bytes received; past it 408
   * REQUEST_TIMEOUT and the connection closes. Never applies to answers held
   * open (watches, feeds, long polls). 0 for none. @default 30000
   */
  readonly requestTimeoutMs?: number;
  /** @default 16384 */
  readonly minBodyBytesPerSecond?: number;
  /** Idle time a kept-alive connection waits for its next request, in ms. @default 5000 */
  readonly keepAliveTimeoutMs?: number;
  /** Connections one remote address may hold open; past it 429 TOO_MANY_CONNECTIONS. 0 for no cap. @default 256 */
  readonly maxConnectionsPerClient?: number;
  /**
   * A per-client request limit (token bucket keyed by credential, else by
   * address; /health* exempt): over it, 429 RATE_LIMITED. @default none
   */
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number } | null;
  /** Binds 127.0.0.1, and requests without a credential run with every scope whatever the configuration (emergency use). */
  readonly insecureLocalhost?: boolean;
  /** @default JSON lines on stdout at level info */
  readonly logger?: Logger;
  /**
   * Check every answer against its route's declared statuses, schemas and
   * error codes, answering 500 on a mismatch (core/server/response-contract.ts).
   * For tests. @default true when LOOM_CHECK_RESPONSES=1, else false
   */
  readonly checkResponses?: boolean;
  /** The instance's DID. @default an ephemeral `did:sync:system:` DID (the reference server persists one) */
  readonly instanceDid?: string;
  /** Backends the application can run on, for the capabilities manifest. @default the store's own */
  readonly storeBackends?: readonly string[];
  /**
   * The clock plugins read (Unix ms): loops, rules, triggers, expiries, signed URLs and manifests
   * (ClockToken). Records' created_at is still stamped by the engine's own clock. @default Date.now
   */
  readonly clock?: Clock;
  /**
   * A global fold's checkpoint at least this large (bytes) loads after the
   * server listens; a request that reads the fold waits for it, a write waits
   * for every fold, loops start once all are loaded. Null: every checkpoint
   * loads before the server listens. @default 8 MiB
   */
  readonly lazyFoldCheckpointBytes?: number | null;
}

export interface Loom {
  readonly engine: LoomEngine;
  readonly server: Hapi.Server;
  readonly container: DependencyContainer;
  readonly catalog: RouteCatalog;
  readonly info: ServerInfo;
  readonly plugins: readonly string[];
  /** Starts the engine and the plugins, then listens. Resolves with the base URL. */
  start(): Promise<string>;
  /** Starts the engine and the plugins without listening (for `server.inject`). */
  initialize(): Promise<void>;
  stop(options?: { timeoutMs?: number }): Promise<void>;
}

export async function createLoom(options: LoomOptions): Promise<Loom> {
  const log = options.logger ?? jsonLogger();
  const store = options.store;
  const root = globalContainer.createChildContainer();
  const dataDir = options.dataDir ?? null;
  const engine = new LoomEngine({
    store,
    onError: (error, context) => log.log('error', context, { error: String(error), stack: (error as Error)?.stack }),
    // Checkpoints are derived state: kept beside a persistent log only.
    foldCheckpointDir: dataDir !== null && store.capabilities.persistent ? join(dataDir, 'folds') : null,
    onFoldReplayed: (report) => log.log('info', 'fold ready', { ...report }),
    ...(options.lazyFoldCheckpointBytes !== undefined ? { lazyCheckpointBytes: options.lazyFoldCheckpointBytes } : {}),
    // A replay or a torn frame means the last stop was a crash (or a kill): say so, and say what was kept.
    onStoreRecovered: (recovery) =>
      recovery.replayedRecords > 0 || recovery.tornTail
        ? log.log('warn', 'crash recovery: replayed the ingest journal', { ...recovery })
        : log.log('info', 'store opened: clean stop, nothing to replay', { ...recovery }),
  });
  const capabilities = new CapabilityFlags();
  // Plugins expose these while registering, before the first request; read through `let` so ServerInfo can be built first.
  let authenticator: Authenticator | null = null;
  const info: ServerInfo = {
    version: LOOM_VERSION,
    apiVersion: API_VERSION,
    specVersion: SPEC_VERSION,
    instanceDid: options.instanceDid ?? `did:sync:system:loom-${randomBytes(8).toString('hex')}`,
    storeBackend: store.capabilities.backend,
    dataDir,
    storeBackends: [...(options.storeBackends ?? [store.capabilities.backend])],
    authRequired: () => (options.insecureLocalhost ? false : (authenticator?.required() ?? false)),
    conventions: { decisions_path: null, identity_path: null, sync_path: null, trust_path: null },
  };
  bindValue(root, Logger, log);
  bindValue(root, RecordStore, store);
  bindValue(root, LoomEngineToken, engine);
  bindValue(root, LogCriticalSectionToken, new LogCriticalSection(engine.store, engine.bus));
  bindValue(root, RecordBusToken, engine.bus);
  bindValue(root, FoldEngineToken, engine.folds);
  bindValue(root, IngestorToken, engine.ingestor);
  bindValue(root, RecordReaderToken, engine.reader);
  bindValue(root, RecordWriterToken, engine.writer);
  bindValue(root, ClockToken, options.clock ?? Date.now);
  bindValue(root, Config, engine.config);
  // The narrow views plugins get instead of the engine (no route or plugin resolves LoomEngineToken).
  bindValue(root, EngineStatusToken, engineStatus(engine));
  bindValue(root, ConfigTopicsToken, engine.configTopics);
  bindValue(root, ConsumerRegistryToken, engine.consumers);
  bindValue(root, CapabilityFlagsToken, capabilities);
  const facts = new DiscoveryFacts();
  bindValue(root, DiscoveryFactsToken, facts);
  bindValue(root, ServerInfo, info);

  const catalog = new RouteCatalog();
  const observers: RequestObserver[] = [];
  const corsHeaders = new Set<string>();
  const staticSites: StaticSite[] = [];
  const backupState = new BackupState();
  bindValue(root, BackupStateToken, backupState);
  bindValue(root, RouteCatalogToken, catalog);
  const loopback = new Loopback();
  bindValue(root, LoopbackToken, loopback);
  const registered = await registerPlugins(options.plugins ?? [], {
    root,
    catalog,
    capabilities,
    facts,
    log,
    dataDir,
    systemThread: (thread) => engine.folds.registerSystemThread(thread),
    fold: (fold) => {
      engine.folds.register(fold);
      return { state: () => engine.folds.globalState(fold.name), snapshot: () => engine.folds.globalSnapshot(fold.name) };
    },
    loop: (loop) => engine.addLoop(loop),
    consume: (plugin, consumer, dataDir) => engine.addConsumer(plugin, consumer, dataDir),
    ingestGate: (gate) => engine.addIngestGate(gate),
    readPolicy: (policy) => engine.addReadPolicy(policy),
    configTopic: (topic, owner) => engine.configTopics.register(topic, owner),
    requestObserver: (observer) => observers.push(observer),
    corsHeader: (name) => corsHeaders.add(name),
    staticSite: (site, owner) => {
      const taken = staticSites.find((other) => other.prefix === site.prefix || site.prefix.startsWith(`${other.prefix}/`) || other.prefix.startsWith(`${site.prefix}/`));
      if (taken || !/^\/[a-z0-9][a-z0-9/-]*[a-z0-9]$/.test(site.prefix) || site.prefix.startsWith('/v1')) throw new Error(`plugin "${owner}": static site prefix ${site.prefix} is taken or not a plain path outside /v1`);
      staticSites.push(site);
    },
    backupState: (entry) => backupState.add(entry),
  });

  // Resolved once, not per request: the request path stays free of container lookups.
  authenticator = root.isRegistered(Authenticator, false) ? root.resolve<Authenticator>(Authenticator) : null;
  catalog.declareAuthenticatorErrors(authenticator?.errors ?? []);
  const cors = root.isRegistered(CorsPolicy, false) ? root.resolve<CorsPolicy>(CorsPolicy) : null;
  const authorizeOptions = { authenticator, enforcementDisabled: options.insecureLocalhost === true };
  const host = options.insecureLocalhost ? '127.0.0.1' : (options.host ?? '127.0.0.1');
  const server = createServer(catalog, registered.containers, {
    host,
    port: options.port ?? 9100,
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    rateLimit: options.rateLimit ?? null,
    checkResponses: options.checkResponses ?? process.env['LOOM_CHECK_RESPONSES'] === '1',
    observers,
    corsHeaders: [...corsHeaders],
    connections: {
      headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.headersTimeoutMs,
      requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.requestTimeoutMs,
      minBodyBytesPerSecond: options.minBodyBytesPerSecond ?? DEFAULT_CONNECTION_LIMITS.minBodyBytesPerSecond,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.keepAliveTimeoutMs,
      maxConnectionsPerClient: options.maxConnectionsPerClient ?? DEFAULT_CONNECTION_LIMITS.maxConnectionsPerClient,
    },
    log,
    auth: () => authorizeOptions,
    cors: () => cors,
  });

  // In-process requests (core/plugin/loopback.ts): the whole pipeline, no socket.
  loopback.attach(async (request) => {
    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    const headers: Record<string, string> = { ...request.headers, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) };
    const answer = await server.inject({ method: request.method, url: request.url, headers, ...(payload === undefined ? {} : { payload }), remoteAddress: '127.0.0.1' });
    const answerHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined) answerHeaders[name] = Array.isArray(value) ? value.join(', ') : String(value);
    return { status: answer.statusCode, headers: answerHeaders, text: answer.payload };
  });

  let initialized: Promise<void> | null = null;
  let stopping: Promise<void> | null = null;
  /** The loops' start, once every fold has loaded (at once unless a checkpoint loads in the background). */
  let loopsStarted: Promise<void> = Promise.resolve();
  const initialize = () =>
    (initialized ??= (async () => {
      await engine.start();
      // Plugins start on rebuilt folds (none reads a fold that loads in the background); loops start once every
      // plugin is ready and every fold has loaded, which may be after the server listens.
      for (const hook of registered.startHooks) await hook();
      const loading = engine.folds.whenAllLoaded();
      if (loading === null) await engine.startLoops();
      else {
        log.log('info', 'folds loading after listen', { folds: engine.folds.loadingFolds() });
        loopsStarted = loading
          .then(
            () => (stopping === null ? engine.startLoops() : undefined),
            () => undefined, // stopped before they loaded
          )
          .catch((error: unknown) => log.log('error', 'the loops did not start', { error: String(error) }));
      }
      await mountStaticSites(server, staticSites);
      await server.initialize();
    })());

  return {
    engine,
    server,
    container: root,
    catalog,
    info,
    plugins: registered.order,
    initialize,
    async start() {
      await initialize();
      await server.start();
      return server.info.uri.replace('0.0.0.0', '127.0.0.1');
    },
    stop({ timeoutMs = 10_000 } = {}) {
      return (stopping ??= (async () => {
        // Requests waiting for a fold still loading answer 503 now; live streams end so draining does not wait on them.
        engine.folds.abortLoading();
        await loopsStarted;
        engine.bus.closeAll();
        await server.stop({ timeout: timeoutMs });
        // Loops stop before the plugins they use are torn down.
        await engine.stopLoops();
        for (const hook of [...registered.stopHooks].reverse()) {
          try {
            await hook();
          } catch (error) {
            log.log('error', 'plugin stop hook failed', { error: String(error) });
          }
        }
        await engine.stop();
        await root.dispose();
      })());
    },
  };
}
