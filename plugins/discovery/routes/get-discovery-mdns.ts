/**
 * GET /v1/discovery/mdns (spec §4.13): the peers this instance has heard on
 * the local network, each `verified` only once its signed manifest verified
 * against the advertised DID; the listener's state and the interfaces it
 * listens on (so "nothing found" and "cannot hear" are told apart), and the
 * announcer's. Reading it never creates a pair.
 */
import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { MdnsDiscoveryToken } from '../discovery-token.js';

const Nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);

export const MdnsPeerSchema = Type.Object(
  {
    object: Type.Literal('mdns_peer'),
    instance: Type.String({ description: 'The service instance label (`<instance>._loom._tcp.local`).' }),
    fqdn: Type.String(),
    did: Nullable(Type.String({ description: 'The DID its TXT advertises (a hint until verified).' })),
    endpoint: Nullable(Type.String({ description: 'Its TXT `url`, else http://<address>:<SRV port>.' })),
    namespace: Nullable(Type.String()),
    handle: Nullable(Type.String()),
    capabilities: Type.Array(Type.String(), { description: 'Capability names its TXT `caps` lists (a hint; its manifest is authoritative).' }),
    addresses: Type.Array(Type.String()),
    last_seen: Type.String({ description: 'When it last announced or answered.' }),
    expires_at: Type.String({ description: 'last_seen plus the TTL it announced; gone from this list after it, or at once on a goodbye.' }),
    ttl_seconds: Type.Integer(),
    verified: Type.Boolean({ description: 'True only while the federation manifest fetched from `endpoint` verifies and names `did`.' }),
    verification: Type.Object({
      state: Type.Union([Type.Literal('pending'), Type.Literal('checking'), Type.Literal('verified'), Type.Literal('failed')]),
      reason: Nullable(Type.String({ description: 'Why it failed: unreachable, service_http_<status>, no_manifest, manifest_<signature_invalid|expired|did_mismatch|malformed>, did_document_mismatch, txt_incomplete.' })),
      checked_at: Nullable(Type.String()),
    }),
  },
  { $id: 'MdnsPeer' },
);

const InterfaceSchema = Type.Object({ name: Type.String(), address: Type.String(), internal: Type.Boolean(), multicast: Type.Union([Type.Boolean(), Type.Null()], { description: 'The kernel MULTICAST flag (null: unknown on this system).' }) });

export const MdnsDiscoverySchema = Type.Object(
  {
    object: Type.Literal('mdns_discovery'),
    service: Type.Literal('_loom._tcp.local'),
    listener: Type.Object({
      enabled: Type.Boolean(),
      listening: Type.Boolean(),
      multicast: Type.Boolean({ description: 'False in the unicast test mode.' }),
      address: Type.String(),
      port: Type.Integer(),
      interfaces: Type.Array(InterfaceSchema),
      error: Nullable(Type.String()),
      warning: Nullable(Type.String()),
      peers_dropped: Type.Integer({ description: 'New peers ignored because the table was full (maxPeers).' }),
    }),
    announcer: Type.Object({ enabled: Type.Boolean(), announcing: Type.Boolean(), instance: Nullable(Type.String()), endpoint: Nullable(Type.String()), error: Nullable(Type.String()) }),
    data: Type.Array(MdnsPeerSchema),
  },
  { $id: 'MdnsDiscovery' },
);

export const getDiscoveryMdns = defineRoute({
  operationId: 'getDiscoveryMdns',
  method: 'GET',
  path: '/v1/discovery/mdns',
  summary: 'Peers found on the local network (mDNS)',
  description:
    'Instances announcing `_loom._tcp.local`, with the DID, endpoint, namespace, handle and capabilities their TXT record advertises and `last_seen`. ' +
    'A peer is `verified` only after the signed federation manifest fetched from its endpoint verifies and names the advertised DID. ' +
    'Entries go on TTL expiry or a goodbye. `listener` says whether this instance listens and on which interfaces. Discovery never creates a pair. Needs federation:manage.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  responses: { 200: { description: 'The peers seen and the listener state.', schema: MdnsDiscoverySchema } },
  errors: [],
  inject: { discovery: MdnsDiscoveryToken },
  handler: (_input, { discovery }) => ({ object: 'mdns_discovery' as const, service: '_loom._tcp.local' as const, listener: discovery.listener(), announcer: discovery.announcer(), data: discovery.peers() }),
});
