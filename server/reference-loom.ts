/**
 * The reference server's composition: which driver (by name, under the data
 * directory), which plugins (ledger, openapi, auth, rules, fleet, trust, folds, graph,
 * actors, data plane, search, metrics, federation when asked, plus any given), and
 * the instance DID persisted in the data directory. The library's root
 * (core/server/create-loom.ts) names none of these; this application does.
 */
// An entry point of its own (loom/server): tsyringe needs the reflect polyfill before it loads.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve as resolvePath } from 'node:path';
import { createLoom, type Loom, type LoomOptions } from '../core/server/create-loom.js';
import type { PluginRegistration } from '../core/plugin/plugin.js';
import type { RecordStore } from '../storage/contract/record-store.js';
import { LevelRecordStore } from '../storage/level/index.js';
import { SqliteRecordStore } from '../storage/sqlite/index.js';
import { PostgresRecordStore } from '../storage/postgres/index.js';
import { ledgerPlugin } from '../plugins/ledger/index.js';
import { authPlugin, type AuthOptions } from '../plugins/auth/index.js';
import { openapiPlugin } from '../openapi/openapi-plugin.js';
import { rulesPlugin, type RulesOptions } from '../plugins/rules/index.js';
import { fleetPlugin, type FleetOptions } from '../plugins/fleet/index.js';
import { actorsPlugin } from '../plugins/actors/index.js';
import { membersPlugin } from '../plugins/members/index.js';
import { workPlugin, type WorkOptions } from '../plugins/work/index.js';
import { foldsPlugin } from '../plugins/folds/index.js';
import { graphPlugin } from '../plugins/graph/index.js';
import { dataPlanePlugin, type DataPlaneOptions } from '../plugins/data-plane/index.js';
import { trustPlugin } from '../plugins/trust/index.js';
import { searchPlugin, type SearchOptions } from '../plugins/search/index.js';
import { metricsPlugin } from '../plugins/metrics/index.js';
import { portabilityPlugin } from '../plugins/portability/index.js';
import { BackupStateToken } from '../core/plugin/backup-state.js';
import { resolve } from '../core/di/token.js';
// ---- MCP (plugins/mcp) ----
import { mcpPlugin, type McpOptions } from '../plugins/mcp/index.js';
// ---- end MCP ----
// ---- console (plugins/console) ----
import { consolePlugin } from '../plugins/console/index.js';
// ---- end console ----
import { createFederationPlugin, InstanceKey, instanceKeyDir, type FederationOptions } from '../plugins/federation/index.js';
// ---- mDNS discovery (plugins/discovery, issue 35) ----
import { discoveryPlugin, type DiscoveryOptions } from '../plugins/discovery/index.js';
// ---- end mDNS discovery ----

export const STORE_BACKENDS = ['sqlite', 'level', 'postgres'] as const;
export type StoreBackend = (typeof STORE_BACKENDS)[number];

export interface ReferenceLoomOptions extends Omit<LoomOptions, 'store' | 'plugins' | 'dataDir' | 'storeBackends'> {
  /** A backend name (stored under `dataDir`) or a ready driver instance. @default 'sqlite' */
  readonly storage?: StoreBackend | RecordStore;
  /** Where the store, plugin state and the instance identity live. @default './data' */
  readonly dataDir?: string;
  /** Plugins besides ledger, openapi, auth, rules and fleet. */
  readonly plugins?: readonly PluginRegistration[];
  /** Options of the ledger plugin. */
  readonly ledger?: { watchHeartbeatMs?: number; maxWatchers?: number };
  /** Options of the auth plugin. @default auth required */
  readonly auth?: Partial<AuthOptions>;
  /** Options of the rules plugin (reconcile concurrency, TICK interval, expression cache). */
  readonly rules?: Partial<RulesOptions>;
  /** Options of the fleet plugin (heartbeat interval, the endpoint heartbeats report). */
  readonly fleet?: Partial<FleetOptions>;
  /** The clock rules, triggers, TICK, CRON and fleet control read (tests drive it). @default Date.now */
  readonly clock?: () => number;
  /** Options of the data plane (chunk size, upload lifetime, default quota, read-URL lifetimes). */
  readonly data?: Partial<DataPlaneOptions>;
  /** Options of the work plugin (providers, admission ceiling, output ceiling, retry policy). */
  readonly work?: Partial<WorkOptions>;
  /** Options of the search plugin (embedding batches and retries, HNSW parameters, find's file size cap). */
  readonly search?: Partial<SearchOptions>;
  /**
   * Federation (off by default): its options, or false. When on, the instance
   * DID is the did:key of the Ed25519 key in `<dataDir>/plugins/federation/`.
   */
  readonly federation?: Partial<FederationOptions> | false;
  /** `full` fsyncs every commit (survives power loss); `normal` survives process crashes. @default 'full' */
  readonly durability?: 'full' | 'normal';
  /** The PostgreSQL database of `storage: 'postgres'` (libpq URL); its schema `databaseSchema`. */
  readonly databaseUrl?: string;
  /** @default 'loom' */
  readonly databaseSchema?: string;
  // ---- MCP (plugins/mcp) ----
  /** Options of the MCP plugin (browser origins allowed besides the server's own loopback origin). */
  readonly mcp?: Partial<McpOptions>;
  // ---- end MCP ----
  // ---- mDNS discovery (plugins/discovery, issue 35) ----
  /** mDNS discovery of peers (loaded with federation; listener on, announcer off by default), or false to leave it out. */
  readonly discovery?: Partial<DiscoveryOptions> | false;
  // ---- end mDNS discovery ----
  // ---- console (plugins/console) ----
  /** The web console at /console/ (its build directory), or false to leave it out. @default served from dist/console */
  readonly console?: { root?: string } | false;
  // ---- end console ----
}

export function openReferenceStore(storage: StoreBackend, dataDir: string, durability: 'full' | 'normal', database: { url?: string; schema?: string }): RecordStore {
  switch (storage) {
    case 'postgres':
      if (!database.url) throw new Error('storage postgres needs a database URL (--database-url or LOOM_DATABASE_URL)');
      // Durability is the database server's (synchronous_commit): a commit is acknowledged once PostgreSQL has it.
      return new PostgresRecordStore({ connectionString: database.url, ...(database.schema ? { schema: database.schema } : {}) });
    case 'sqlite':
      return new SqliteRecordStore({ path: join(dataDir, 'loom.sqlite'), durability });
    case 'level':
      return new LevelRecordStore({ path: join(dataDir, 'level'), durability });
    default:
      throw new Error(`unknown storage backend ${JSON.stringify(storage)} (backends: ${STORE_BACKENDS.join(', ')})`);
  }
}

/** The instance DID saved in the data directory, minted on first start. */
export async function persistedInstanceDid(dataDir: string): Promise<string> {
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

export async function createReferenceLoom(options: ReferenceLoomOptions = {}): Promise<Loom> {
  const { storage = 'sqlite', plugins = [], ledger, auth, durability, rules, fleet, data, search, work, clock, federation = false, databaseUrl, databaseSchema, mcp, console: consoleOptions = {}, discovery = {}, ...rest } = options;
  const dataDir = resolvePath(options.dataDir ?? './data');
  await mkdir(dataDir, { recursive: true });
  const key = federation === false ? null : await InstanceKey.loadOrCreate(instanceKeyDir(dataDir));
  const store = typeof storage === 'string' ? openReferenceStore(storage, dataDir, durability ?? 'full', { url: databaseUrl, schema: databaseSchema }) : storage;
  const loom = await createLoom({
    ...rest,
    store,
    ...(clock ? { clock } : {}),
    dataDir,
    instanceDid: key?.did ?? options.instanceDid ?? (await persistedInstanceDid(dataDir)),
    storeBackends: typeof storage === 'string' ? [...STORE_BACKENDS] : [store.capabilities.backend],
    plugins: [
      { plugin: ledgerPlugin, options: ledger ?? {} },
      openapiPlugin,
      { plugin: authPlugin, options: auth ?? {} },
      { plugin: rulesPlugin, options: rules ?? {} },
      { plugin: fleetPlugin, options: fleet ?? {} },
      trustPlugin,
      foldsPlugin,
      graphPlugin,
      actorsPlugin,
      membersPlugin,
      { plugin: workPlugin, options: work ?? {} },
      { plugin: dataPlanePlugin, options: data ?? {} },
      { plugin: searchPlugin, options: search ?? {} },
      metricsPlugin,
      portabilityPlugin,
      { plugin: mcpPlugin, options: mcp ?? {} }, // ---- MCP (plugins/mcp) ----
      ...(consoleOptions === false ? [] : [{ plugin: consolePlugin, options: consoleOptions }]), // ---- console (plugins/console) ----
      ...(key && federation !== false ? [{ plugin: createFederationPlugin({ key }), options: federation }] : []),
      ...(key && federation !== false && discovery !== false ? [{ plugin: discoveryPlugin, options: { strictManifests: federation.strictManifests ?? true, ...discovery } }] : []), // ---- mDNS discovery ----
      ...plugins,
    ],
  });
  // The instance DID of a server without federation lives here, outside any plugin's directory.
  resolve(loom.container, BackupStateToken).add({ plugin: 'reference', path: 'instance.json' });
  return loom;
}
