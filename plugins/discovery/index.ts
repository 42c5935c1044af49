/**
 * The discovery plugin (spec §4.13, issue 35): mDNS / DNS-SD for
 * `_loom._tcp.local` through bonjour-service. The listener is on by default,
 * the announcer off; GET /v1/discovery/mdns lists the peers heard, each
 * `verified` only after its signed federation manifest verifies against the
 * advertised DID (the federation plugin's verifier). Discovery is optional
 * sugar: it never creates a pair, and did:web (/.well-known/did.json), static
 * sync pairs and the did:sync directory work without it. Loaded with
 * federation (`loom serve --federation`; `--no-mdns`, `--mdns-announce`).
 */
import { resolve } from '../../core/di/token.js';
import { ClockToken } from '../../core/engine/clock.js';
import { IntervalLoop } from '../../core/engine/interval-loop.js';
import { CapabilityFlagsToken } from '../../core/plugin/capabilities.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { MdnsDiscoveryToken } from './discovery-token.js';
import { checkPeerManifest } from './manifest-check.js';
import { MdnsAnnouncer } from './mdns-announcer.js';
import { MdnsListener } from './mdns-listener.js';
import { DiscoveryOptions } from './options.js';
import { PeerTable } from './peer-table.js';
import { getDiscoveryMdns } from './routes/get-discovery-mdns.js';

export { DiscoveryOptions } from './options.js';
export { MdnsDiscoveryToken, type MdnsDiscovery } from './discovery-token.js';
export { encodeTxt, decodeTxt, SERVICE_NAME } from './txt-record.js';

export const DISCOVERY_PLUGIN = 'discovery';

/** How often expired entries are dropped and due manifest checks started; the list also filters expired entries when read. */
const SWEEP_MS = 200;

export const discoveryPlugin = definePlugin({
  name: DISCOVERY_PLUGIN,
  version: '1.0.0',
  // The manifest verifier and the instance identity are federation's.
  dependencies: ['federation'],
  options: DiscoveryOptions,
  register(scope, options) {
    const now = resolve(scope.container, ClockToken);
    const info = resolve(scope.container, ServerInfo);
    const flags = resolve(scope.container, CapabilityFlagsToken);
    const table = new PeerTable(now, { maxPeers: options.maxPeers, reverifyMs: options.reverifyMs });
    const listener = new MdnsListener(options, table, (endpoint, did) => checkPeerManifest(endpoint, did, { timeoutMs: options.verifyTimeoutMs, now, strict: options.strictManifests }), scope.log);
    const key = info.instanceDid.replace(/^did:[a-z]+:/, '').replace(/[^A-Za-z0-9]/g, '');
    const instance = options.instanceName ?? `loom-${key.slice(-12)}`;
    const announcer = new MdnsAnnouncer(
      options,
      instance,
      () => ({
        did: info.instanceDid,
        endpoint: options.endpoint,
        namespace: options.namespace,
        handle: options.handle,
        // The federation features this instance serves, short names first (TXT is a hint; the manifest is the truth).
        capabilities: Object.entries(flags.snapshot())
          .filter(([name, on]) => on && name.startsWith('federation.'))
          .map(([name]) => name.slice('federation.'.length)),
      }),
      scope.log,
    );
    scope.expose(MdnsDiscoveryToken, { peers: () => table.list(), listener: () => listener.status(), announcer: () => announcer.status() });
    scope.route(getDiscoveryMdns);
    scope.loop(new IntervalLoop('discovery-mdns', SWEEP_MS, async () => listener.sweep(), (context, error) => scope.log.log('error', context, { error: String(error) })));

    // True only once it works: the listener bound its socket, the announcer published.
    scope.capability('discovery.mdns', false);
    scope.capability('discovery.mdns_announce', false);
    scope.onStart(async () => {
      await listener.start();
      announcer.start();
      scope.capability('discovery.mdns', listener.status().listening);
      scope.capability('discovery.mdns_announce', options.announce && announcer.status().error === null);
    });
    scope.onStop(async () => {
      await announcer.stop();
      await listener.stop();
      scope.capability('discovery.mdns', false);
      scope.capability('discovery.mdns_announce', false);
    });
  },
});
