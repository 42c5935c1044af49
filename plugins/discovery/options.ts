/** Options of the discovery plugin (reference server: `loom serve --federation`, flags `--no-mdns`, `--mdns-announce`). */
import { Type, type Static } from 'typebox';

const IPV4 = '^(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}$';

export const DiscoveryOptions = Type.Object(
  {
    /** Listen for `_loom._tcp.local` on the local network (the reference system listens by default). @default true */
    listen: Type.Boolean({ default: true }),
    /** Announce this instance as `_loom._tcp.local` (off by default: saying who you are to a LAN is the operator's choice). @default false */
    announce: Type.Boolean({ default: false }),
    /**
     * The URL peers reach this instance at, announced in TXT `url` and SRV
     * (port, host). The reference server passes LOOM_PUBLIC_URL, else its
     * bound address. Announcing needs it. @default null
     */
    endpoint: Type.Union([Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' }), Type.Null()], { default: null }),
    /** The instance name in `<name>._loom._tcp.local` (default: `loom-` and 12 characters of the DID's key). @default null */
    instanceName: Type.Union([Type.String({ minLength: 1, maxLength: 63, pattern: '^[^.]+$' }), Type.Null()], { default: null }),
    /** The namespace announced in TXT `ns` (the one a pair would usually target). @default null */
    namespace: Type.Union([Type.String({ minLength: 1, maxLength: 120 }), Type.Null()], { default: null }),
    /** The handle announced in TXT `handle` (e.g. the did:sync directory handle). @default null */
    handle: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], { default: null }),
    /** The IPv4 address of the one interface to use (default: every IPv4 interface). @default null */
    interface: Type.Union([Type.String({ pattern: IPV4 }), Type.Null()], { default: null }),
    /** The mDNS group and port (RFC 6762: 224.0.0.251:5353); tests use a unicast address and a free port. @default '224.0.0.251' */
    address: Type.String({ pattern: IPV4, default: '224.0.0.251' }),
    /** @default 5353 */
    port: Type.Integer({ minimum: 1, maximum: 65535, default: 5353 }),
    /**
     * Join the multicast group (true), or exchange unicast datagrams with
     * `address:port` (false: a loopback test harness, as multicast-dns's own tests do). @default true
     */
    multicast: Type.Boolean({ default: true }),
    /** How often the listener asks the network again (a PTR query), so peers announced before it started are found. @default 60000 */
    queryIntervalMs: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000 }),
    /** Peers held at most; a flood of announcements past it is dropped, so a LAN cannot grow this instance's memory. @default 256 */
    maxPeers: Type.Integer({ minimum: 1, maximum: 10_000, default: 256 }),
    /** Time one manifest check may take (GET /.well-known/service and /.well-known/did.json). @default 3000 */
    verifyTimeoutMs: Type.Integer({ minimum: 50, maximum: 60_000, default: 3_000 }),
    /** Refuse a peer manifest whose signature expired (the reference server passes federation's `--no-strict`). @default true */
    strictManifests: Type.Boolean({ default: true }),
    /** A peer whose manifest check failed is checked again after this long (while it is still announced). @default 30000 */
    reverifyMs: Type.Integer({ minimum: 100, maximum: 86_400_000, default: 30_000 }),
  },
  { additionalProperties: false },
);

export type DiscoveryOptions = Static<typeof DiscoveryOptions>;
