/**
 * Each plugin composes alone (with only what it declares it needs) and with
 * each optional dependency it declares: an undeclared dependency fails here
 * (a service resolved at registration or at mount), not in a deployment that
 * happens to leave a plugin out.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { createLoom } from '../core/server/create-loom.js';
import { silentLogger } from '../core/plugin/logger.js';
import type { LoomPlugin, PluginRegistration } from '../core/plugin/plugin.js';
import { SqliteRecordStore } from '../storage/sqlite/index.js';
import { openapiPlugin } from '../openapi/openapi-plugin.js';
import { actorsPlugin } from '../plugins/actors/index.js';
import { authPlugin } from '../plugins/auth/index.js';
import { dataPlanePlugin } from '../plugins/data-plane/index.js';
import { createFederationPlugin, InstanceKey, instanceKeyDir } from '../plugins/federation/index.js';
import { fleetPlugin } from '../plugins/fleet/index.js';
import { foldsPlugin } from '../plugins/folds/index.js';
import { graphPlugin } from '../plugins/graph/index.js';
import { ledgerPlugin } from '../plugins/ledger/index.js';
import { membersPlugin } from '../plugins/members/index.js';
import { metricsPlugin } from '../plugins/metrics/index.js';
import { portabilityPlugin } from '../plugins/portability/index.js';
import { rulesPlugin } from '../plugins/rules/index.js';
import { searchPlugin } from '../plugins/search/index.js';
import { trustPlugin } from '../plugins/trust/index.js';
import { workPlugin } from '../plugins/work/index.js';
// ---- mDNS discovery (issue 35) ----
import { discoveryPlugin } from '../plugins/discovery/index.js';
// ---- end mDNS discovery ----

/** Every plugin the project ships; federation's needs the instance key, made per data directory. */
const SHIPPED: ReadonlyArray<LoomPlugin | 'federation'> = [
  ledgerPlugin,
  openapiPlugin,
  authPlugin,
  rulesPlugin,
  fleetPlugin,
  trustPlugin,
  foldsPlugin,
  graphPlugin,
  actorsPlugin,
  membersPlugin,
  workPlugin,
  dataPlanePlugin,
  searchPlugin,
  metricsPlugin,
  portabilityPlugin,
  'federation',
  discoveryPlugin, // ---- mDNS discovery (issue 35) ----
];

interface Composition {
  readonly plugin: string;
  readonly with: string | null;
}

/** The plugin objects by name (federation's with a placeholder key: only its declarations are read here). */
async function declarations(dir: string): Promise<Map<string, LoomPlugin>> {
  const key = await InstanceKey.loadOrCreate(instanceKeyDir(dir));
  return new Map(SHIPPED.map((entry) => (entry === 'federation' ? createFederationPlugin({ key }) : entry)).map((plugin) => [plugin.name, plugin as LoomPlugin]));
}

/** `names` and every plugin they need, transitively. */
function closure(byName: ReadonlyMap<string, LoomPlugin>, names: readonly string[]): string[] {
  const out = new Set<string>();
  const add = (name: string) => {
    if (out.has(name)) return;
    out.add(name);
    for (const dependency of byName.get(name)!.dependencies ?? []) add(dependency);
  };
  for (const name of names) add(name);
  return [...out];
}

describe('plugin load: each plugin alone and with each optional dependency it declares', () => {
  let scratch: string;
  let byName: Map<string, LoomPlugin>;
  const compositions: Composition[] = [];

  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'loom-plugin-load-'));
    byName = await declarations(scratch);
    for (const plugin of byName.values()) {
      compositions.push({ plugin: plugin.name, with: null });
      for (const optional of plugin.optionalDependencies ?? []) compositions.push({ plugin: plugin.name, with: optional });
    }
  });

  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('every declared dependency, required or optional, names a shipped plugin', () => {
    for (const plugin of byName.values()) {
      for (const name of [...(plugin.dependencies ?? []), ...(plugin.optionalDependencies ?? [])]) expect(byName.has(name), `${plugin.name} -> ${name}`).to.equal(true);
    }
  });

  it('the optional dependencies found at run time are declared', () => {
    const optional = (name: string) => byName.get(name)!.optionalDependencies ?? [];
    expect(optional('search')).to.include('data-plane');
    expect(optional('actors')).to.include('trust');
    expect(optional('trust')).to.include('auth');
    // The work plugin's tools over the search, trust, rules and data-plane services (plugins/work/tools/register-loom-tools.ts).
    expect(optional('work')).to.include.members(['search', 'trust', 'rules', 'data-plane']);
  });

  it('composes, starts and stops every one of them', async function () {
    this.timeout(120_000);
    const failures: string[] = [];
    for (const [index, composition] of compositions.entries()) {
      const names = closure(byName, [composition.plugin, ...(composition.with ? [composition.with] : [])]);
      const dir = join(scratch, String(index));
      const label = `${composition.plugin}${composition.with ? ` with ${composition.with}` : ' alone'} (${names.join(', ')})`;
      try {
        const key = names.includes('federation') ? await InstanceKey.loadOrCreate(instanceKeyDir(dir)) : null;
        const plugins: PluginRegistration[] = names.map((name) => (name === 'federation' ? { plugin: createFederationPlugin({ key: key! }), options: {} } : byName.get(name)!));
        const loom = await createLoom({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite') }), dataDir: dir, port: 0, logger: silentLogger, insecureLocalhost: true, ...(key ? { instanceDid: key.did } : {}), plugins });
        try {
          await loom.initialize();
          expect([...loom.plugins].sort(), label).to.deep.equal([...names].sort());
          // The manifest is the ledger's route (the openapi plugin composes without it).
          if (names.includes('ledger')) expect((await loom.server.inject({ method: 'GET', url: '/v1/capabilities' })).statusCode, label).to.equal(200);
        } finally {
          await loom.stop();
        }
      } catch (error) {
        failures.push(`${label}: ${(error as Error).stack ?? String(error)}`);
      }
    }
    expect(failures).to.deep.equal([]);
    // 14 optional dependencies: the federation handshake's on auth (issue 35) is the 14th.
    expect(compositions.length).to.equal(byName.size + 14);
  });
});
