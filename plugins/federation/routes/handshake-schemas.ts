/** Schemas of the handshake and federation pair routes (declared once: validation, OpenAPI, SDK). */
import { Type } from 'typebox';
import { PAIR_MODES } from '../pair-records.js';

const Did = Type.String({ pattern: '^did:key:z[1-9A-HJ-NP-Za-km-z]{40,60}$' });
const Nonce = Type.String({ pattern: '^[A-Za-z0-9_-]{43}$', description: '32 random bytes, base64url; single use (a replay answers 410 PAIR_NONCE_REPLAYED).' });
const Created = Type.String({ description: 'ISO 8601; must be within ±60 s of the reader clock (else 401 PAIR_REQUEST_STALE).' });
const Sig = Type.String({ description: 'Ed25519 by the sender DID, base64, over the canonical JSON of the body without sig.' });
const Mode = Type.Union(PAIR_MODES.map((m) => Type.Literal(m)));
/** 1 s to 1 day; spec §8: 5 minutes by default. */
export const PollInterval = Type.Integer({ minimum: 1_000, maximum: 86_400_000, description: 'Poll interval of mode polling in ms (also the cap of the retry backoff). @default 300000 (the federation option pairPollIntervalMs)' });
export const FederationPairIdParams = Type.Object({ id: Type.String({ pattern: '^fed_[0-9a-f]{32}$' }) });

export const PairRequestSchema = Type.Object(
  {
    object: Type.Literal('pair_request'),
    protocol: Type.String({ minLength: 1, maxLength: 32 }),
    initiator_did: Did,
    initiator_url: Type.String({ maxLength: 2048, description: 'Where the responder reaches the initiator (its sync pair pulls it there).' }),
    initiator_manifest: Type.Object({}, { additionalProperties: true, description: "The initiator's signed federation manifest (verified against initiator_did)." }),
    responder_did: Did,
    nonce: Nonce,
    created: Created,
    mode: Mode,
    token: Type.String({ minLength: 16, maxLength: 512, description: "The initiator's bearer for the responder (federation:sync, federation:subscribe and the reads the initiator allows; 90 days)." }),
    token_expires_at: Type.String(),
    sig: Sig,
  },
  { additionalProperties: false, $id: 'PairRequest' },
);

export const PairAnswerSchema = Type.Object(
  {
    object: Type.Literal('pair_answer'),
    pair_id: Type.String(),
    state: Type.Union([Type.Literal('active'), Type.Literal('establishing'), Type.Literal('revoked')]),
    initiator_did: Type.String(),
    responder_did: Type.String(),
    nonce: Type.String({ description: 'The nonce of the request or poll answered.' }),
    created: Type.String(),
    token: Type.Union([Type.String(), Type.Null()], { description: "The responder's bearer for the initiator, once active." }),
    token_expires_at: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String()),
    sig: Sig,
  },
  { additionalProperties: false, $id: 'PairAnswer' },
);

export const PairPollSchema = Type.Object(
  { object: Type.Literal('pair_poll'), pair_id: Type.String(), initiator_did: Did, responder_did: Did, nonce: Nonce, created: Created, sig: Sig },
  { additionalProperties: false, $id: 'PairPoll' },
);

export const RevokeNoticeSchema = Type.Object(
  { object: Type.Literal('pair_revoke_notice'), pair_id: Type.String(), from_did: Did, to_did: Did, nonce: Nonce, created: Created, reason: Type.String({ minLength: 1, maxLength: 512 }), sig: Sig },
  { additionalProperties: false, $id: 'PairRevokeNotice' },
);

export const FederationPairSchema = Type.Object(
  {
    object: Type.Literal('federation_pair'),
    pair_id: Type.String(),
    role: Type.Union([Type.Literal('initiator'), Type.Literal('responder')]),
    peer_did: Type.String(),
    peer_url: Type.String(),
    state: Type.Union([Type.Literal('establishing'), Type.Literal('active'), Type.Literal('paused'), Type.Literal('degraded'), Type.Literal('revoked')]),
    mode: Mode,
    poll_interval_ms: Type.Union([Type.Integer(), Type.Null()], { description: 'Interval of mode polling, and the cap of the retry backoff (null before active: the instance default).' }),
    sync_pair_id: Type.String({ description: 'The sync pair pulling the peer (GET /v1/sync/pairs/{id}) once active.' }),
    scopes: Type.Array(Type.String()),
    issued_token: Type.Union([Type.Object({ service_account_id: Type.String(), token_id_prefix: Type.String(), expires_at: Type.String() }), Type.Null()]),
    previous_issued_token: Type.Union([Type.Object({ service_account_id: Type.String(), token_id_prefix: Type.String(), expires_at: Type.String() }), Type.Null()], { description: 'The token a renewal replaced, alive until the peer first uses the new one.' }),
    held_token_expires_at: Type.Union([Type.String(), Type.Null()]),
    token_renewed_at: Type.Union([Type.String(), Type.Null()]),
    last_error: Type.Union([Type.Object({ code: Type.String(), message: Type.String(), at: Type.String() }), Type.Null()], { description: 'While pulls fail, the latest failure; otherwise the one that last made the pair degraded.' }),
    retries: Type.Integer({ description: 'Failed pulls in a row.' }),
    next_retry_at: Type.Union([Type.String(), Type.Null()], { description: 'When the next pull is tried while pulls fail (backoff capped at the poll interval).' }),
    last_sync_at: Type.Union([Type.String(), Type.Null()]),
    last_sync_cursor: Type.Union([Type.String(), Type.Null()]),
    paused_at: Type.Union([Type.String(), Type.Null()]),
    degraded_at: Type.Union([Type.String(), Type.Null()]),
    peer_manifest: Type.Object({}, { additionalProperties: true }),
    peer_manifest_changed_at: Type.Union([Type.String(), Type.Null()]),
    requested_at: Type.String(),
    approved_at: Type.Union([Type.String(), Type.Null()]),
    approved_by: Type.Union([Type.String(), Type.Null()]),
    active_at: Type.Union([Type.String(), Type.Null()]),
    revoked_at: Type.Union([Type.String(), Type.Null()]),
    revoked_by: Type.Union([Type.Literal('local'), Type.Literal('peer'), Type.Null()]),
    revoked_reason: Type.Union([Type.String(), Type.Null()]),
    peer_notified: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    manifest_changed: Type.Optional(Type.Boolean({ description: 'refresh: the peer manifest differed from the snapshot (recorded as peer_manifest_changed).' })),
  },
  { additionalProperties: false, $id: 'FederationPair' },
);

export const CreateFederationPairBody = Type.Object(
  {
    url: Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', maxLength: 2048, description: "The peer's base URL." }),
    mode: Type.Optional(Type.Union(PAIR_MODES.map((m) => Type.Literal(m)), { description: 'How this side pulls the peer (the peer pulls the same way). @default polling' })),
    poll_interval_ms: Type.Optional(PollInterval),
    self_url: Type.Optional(Type.String({ pattern: '^https?://[^\\s/]+(/[^\\s]*)?$', maxLength: 2048, description: 'Where the peer reaches this instance; default: the federation option baseUrl, else the Host this request was sent to.' })),
  },
  { additionalProperties: false },
);

export const PairSettingsBody = Type.Object(
  { mode: Type.Optional(Mode), poll_interval_ms: Type.Optional(PollInterval) },
  { additionalProperties: false, minProperties: 1 },
);

export const TokenRenewSchema = Type.Object(
  { object: Type.Literal('pair_token_renew'), pair_id: Type.String(), from_did: Did, to_did: Did, nonce: Nonce, created: Created, sig: Sig },
  { additionalProperties: false, $id: 'PairTokenRenew' },
);

export const TokenRenewedSchema = Type.Object(
  {
    object: Type.Literal('pair_token'),
    pair_id: Type.String(),
    from_did: Type.String(),
    to_did: Type.String(),
    nonce: Type.String({ description: 'The nonce of the renewal answered.' }),
    created: Type.String(),
    token: Type.String({ description: 'The new bearer for the peer (90 days); the old one is revoked once the peer uses this one.' }),
    token_expires_at: Type.String(),
    sig: Sig,
  },
  { additionalProperties: false, $id: 'PairToken' },
);
