/** Options of the federation plugin (reference server: `loom serve --federation`, or option `federation`). */
import { Type, type Static } from 'typebox';

export const FederationOptions = Type.Object(
  {
    /**
     * The public origin peers reach this instance at (`https://loom.example.com`);
     * the manifest's endpoints are absolute when set. @default null
     */
    baseUrl: Type.Union([Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$' }), Type.Null()], { default: null }),
    /** A domain this instance answers for: adds `did:web:<domain>` and serves /.well-known/did.json. @default null */
    domain: Type.Union([Type.String({ pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' }), Type.Null()], { default: null }),
    /** Lifetime of the manifest signature (spec §8: 7 days); re-signed when a quarter is left. @default 604800 */
    manifestTtlSeconds: Type.Integer({ minimum: 60, maximum: 90 * 86_400, default: 7 * 86_400 }),
    /** Refuse a peer manifest whose signature expired (`--no-strict` turns only this check off). @default true */
    strictManifests: Type.Boolean({ default: true }),
    /** How long `feed=longpoll` holds a request with nothing new (spec §8: 30 s). @default 30000 */
    longpollTimeoutMs: Type.Integer({ minimum: 100, maximum: 120_000, default: 30_000 }),
    /** Heartbeat interval of `feed=continuous` while idle. @default 10000 */
    heartbeatMs: Type.Integer({ minimum: 50, maximum: 120_000, default: 10_000 }),
    /** Interval of a `polling` pair between pulls that found nothing. @default 5000 */
    pollIntervalMs: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 5_000 }),
    /** A pair is `failing` after this many consecutive errors. @default 3 */
    failingAfterErrors: Type.Integer({ minimum: 1, maximum: 1000, default: 3 }),
    /** First retry delay; doubles per consecutive error, with jitter, up to backoffMaxMs. @default 500 */
    backoffBaseMs: Type.Integer({ minimum: 1, maximum: 600_000, default: 500 }),
    /** Longest retry delay. @default 60000 */
    backoffMaxMs: Type.Integer({ minimum: 1, maximum: 3_600_000, default: 60_000 }),
    /** Records asked for per pull (the feed's `limit`). @default 1000 */
    pullLimit: Type.Integer({ minimum: 1, maximum: 10_000, default: 1_000 }),
    /**
     * Sync pairs this instance holds at most; creating one more is refused
     * with PAIR_LIMIT_REACHED. Each pair is a loop with a connection to its
     * peer, so an unbounded number is an easy way to exhaust the instance.
     * @default 100
     */
    maxPairs: Type.Integer({ minimum: 1, maximum: 10_000, default: 100 }),
    /**
     * How pair requests are answered while no `federation_pairing` configuration
     * record says otherwise: `open` approves at once, `pair-then-ask` waits for an
     * operator, `invite-only` and `closed` refuse. @default 'pair-then-ask'
     */
    pairPosture: Type.Union([Type.Literal('open'), Type.Literal('pair-then-ask'), Type.Literal('invite-only'), Type.Literal('closed')], { default: 'pair-then-ask' }),
    /** What a token minted for a peer may read besides federation:sync and federation:subscribe. @default ['records:read'] */
    pairReadScopes: Type.Array(Type.String({ pattern: '^(records:read|namespace:[a-z0-9][a-z0-9._/-]{0,200}:read|thread:th_[0-9a-f]{64}:read)$' }), { maxItems: 16, default: ['records:read'] }),
    /** How often the initiator polls a pair waiting for the peer operator's approval. @default 1000 */
    handshakePollMs: Type.Integer({ minimum: 50, maximum: 600_000, default: 1_000 }),
    /** Poll interval of a federation pair in mode `polling` unless set per pair (spec §8: 5 minutes); also its backoff cap. @default 300000 */
    pairPollIntervalMs: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 300_000 }),
    /** A pair request still `establishing` after this long is revoked (reason `expired`) on either side. @default 604800000 (7 days) */
    pendingPairTtlMs: Type.Integer({ minimum: 1_000, maximum: 90 * 86_400_000, default: 7 * 86_400_000 }),
    /** A held pair token is renewed when this much of its life is left (90-day tokens: at 83 days). @default 604800000 (7 days) */
    tokenRenewLeadMs: Type.Integer({ minimum: 1_000, maximum: 89 * 86_400_000, default: 7 * 86_400_000 }),
    /** How often tokens due for renewal are looked for; a failed renewal is retried at this pace. @default 60000 */
    tokenCheckMs: Type.Integer({ minimum: 20, maximum: 86_400_000, default: 60_000 }),
    /**
     * After `rotate-key`, how long the previous key stays valid (its `expired_ts` = rotation + this); peers follow the
     * rotation in the meantime. The manifest's lifetime, so a peer holding a manifest still valid is never cut off. @default 604800 (7 days)
     */
    keyOverlapSeconds: Type.Integer({ minimum: 1, maximum: 90 * 86_400, default: 7 * 86_400 }),
  },
  { additionalProperties: false },
);

export type FederationOptions = Static<typeof FederationOptions>;

/** The federation protocol version this build speaks (reported in the manifest). */
// 0.14: pages are signed as sync_page.v2 (whole records, bound to their request); a 0.13 peer's pages do not verify here, nor ours there.
export const FEDERATION_PROTOCOL_VERSION = '0.14';
