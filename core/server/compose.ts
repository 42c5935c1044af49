/**
 * The composition root: options → container → driver → engine → plugins →
 * server. The only file in core that names concrete drivers and plugins.
 * `createLoom` builds everything without listening; `start()` opens storage,
 * rebuilds folds, starts loops and listens; `stop()` drains in-flight
 * requests, stops loops and flushes storage.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import type Hapi from '@hapi/hapi';
import { container as globalContainer, type DependencyContainer } from 'tsyringe';
import { bindValue } from '../di/token.js';
import { RecordBusToken } from '../engine/broadcast.js';
import { FoldEngineToken } from '../engine/fold-engine.js';
import { IngestorToken } from '../engine/ingest.js';
import { LoomEngine, LoomEngineToken } from '../engine/loom-engine.js';
import { CapabilityFlags, CapabilityFlagsToken } from '../plugin/capabilities.js';
import { jsonLogger, Logger } from '../plugin/logger.js';
import type { PluginRegistration } from '../plugin/plugin.js';
import { registerPlugins } from '../plugin/plugin-host.js';
import { RouteCatalog, RouteCatalogToken } from '../plugin/route-catalog.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import { LevelRecordStore } from '../../storage/level/index.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { ledgerPlugin } from '../../plugins/ledger/index.js';
import { openapiPlugin } from '../../openapi/openapi-plugin.js';
import { createServer } from './create-server.js';
import { API_VERSION, ServerInfo, SPEC_VERSION } from './server-info.js';
import { LOOM_VERSION } from './version.js';

export const STORE_BACKENDS = ['sqlite', 'level'] as const;
export type StoreBackend = (typeof STORE_BACKENDS)[number];

export interface LoomOptions {
  /** A backend name (stored under `dataDir`) or a ready driver instance. @default 'sqlite' */
  readonly storage?: StoreBackend | RecordStore;
  /** Where the embedded store keeps its files. @default './data' */
  readonly dataDir?: string;
  /** Plugins besides the always-loaded ledger and openapi plugins, each optionally with options. */
  readonly plugins?: readonly PluginRegistration[];
  /** Options of the ledger plugin. */
  readonly ledger?: { watchHeartbeatMs?: number };
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 9100 */
  readonly port?: number;
  /** Largest request body in bytes. @default 1048576 */
  readonly maxBodyBytes?: number;
  /** Binds 127.0.0.1 and disables auth enforcement regardless of configuration (emergency use). */
  readonly insecureLocalhost?: boolean;
  /** @default JSON lines on stdout at level info */
  readonly logger?: Logger;
  /** `full` fsyncs every commit (survives power loss); `normal` survives process crashes. @default 'full' */
  readonly durability?: 'full' | 'normal';
  /** The instance's DID. @default a `did:sync:system:` DID persisted in the data directory */
  readonly instanceDid?: string;
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

function openStore(storage: StoreBackend, dataDir: string, durability: 'full' | 'normal'): RecordStore {
  switch (storage) {
    case 'sqlite':
      return new SqliteRecordStore({ path: join(dataDir, 'loom.sqlite'), durability });
    case 'level':
      return new LevelRecordStore({ path: join(dataDir, 'level'), durability });
    default:
      throw new Error(`unknown storage backend ${JSON.stringify(storage)} (backends: ${STORE_BACKENDS.join(', ')})`);
  }
}

async function instanceDidFor(dataDir: string | null): Promise<string> {
  if (!dataDir) return `did:sync:system:loom-${randomBytes(8).toString('hex')}`;
  const file = join(dataDir, 'instance.json');
  try {
    const saved = JSON.parse(await readFile(file, 'utf8')) as { did?: string };
    if (typeof saved.did === 'string') return saved.did;
  } catch {
    // first start: mint one below
  }
  const did = `did:sync:system:loom-${randomBytes(8).toString('hex')}`;
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, JSON.stringify({ did }, null, 2) + '\n');
  return did;
}

export async function createLoom(options: LoomOptions = {}): Promise<Loom> {
  const log = options.logger ?? jsonLogger();
  const storage = options.storage ?? 'sqlite';
  const dataDir = typeof storage === 'string' ? resolvePath(options.dataDir ?? './data') : options.dataDir ? resolvePath(options.dataDir) : null;
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const store = typeof storage === 'string' ? openStore(storage, dataDir!, options.durability ?? 'full') : storage;

  const root = globalContainer.createChildContainer();
  const engine = new LoomEngine({ store, onError: (error, context) => log.log('error', context, { error: String(error) }) });
  const capabilities = new CapabilityFlags();
  const info: ServerInfo = {
    version: LOOM_VERSION,
    apiVersion: API_VERSION,
    specVersion: SPEC_VERSION,
    instanceDid: options.instanceDid ?? (await instanceDidFor(dataDir)),
    storeBackend: store.capabilities.backend,
    storeBackends: typeof storage === 'string' ? [...STORE_BACKENDS] : [store.capabilities.backend],
    authRequired: () => false,
    conventions: { decisions_path: null, identity_path: null, sync_path: null, trust_path: null },
  };
  bindValue(root, Logger, log);
  bindValue(root, RecordStore, store);
  bindValue(root, LoomEngineToken, engine);
  bindValue(root, RecordBusToken, engine.bus);
  bindValue(root, FoldEngineToken, engine.folds);
  bindValue(root, IngestorToken, engine.ingestor);
  bindValue(root, CapabilityFlagsToken, capabilities);
  bindValue(root, ServerInfo, info);

  const catalog = new RouteCatalog();
  bindValue(root, RouteCatalogToken, catalog);
  const registered = await registerPlugins([{ plugin: ledgerPlugin, options: options.ledger ?? {} }, openapiPlugin, ...(options.plugins ?? [])], {
    root,
    catalog,
    capabilities,
    log,
    fold: (fold) => engine.folds.register(fold),
    loop: (loop) => engine.addLoop(loop),
  });

  const host = options.insecureLocalhost ? '127.0.0.1' : (options.host ?? '127.0.0.1');
  const server = createServer(catalog, registered.containers, { host, port: options.port ?? 9100, maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024, log });

  let initialized: Promise<void> | null = null;
  const initialize = () =>
    (initialized ??= (async () => {
      await engine.start();
      for (const hook of registered.startHooks) await hook();
      await server.initialize();
    })());

  let stopping: Promise<void> | null = null;
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
        // End live streams first so draining does not wait on them, then let in-flight requests finish.
        engine.bus.closeAll();
        await server.stop({ timeout: timeoutMs });
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
