/**
 * The pairing handshake (spec §4.13 `POST /v1/federation/pair`, no bearer:
 * the signatures authenticate, §5.1 rule 7) with the initiator's poll and the
 * peer's revoke notice, and the operator's federation pairs (§2.8, §3):
 * pair with a URL, list, show, approve, revoke (federation:manage).
 */
import { Type } from 'typebox';
import { actingDid } from '../../../core/access/caller.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FederationOptionsToken } from '../federation-token.js';
import { federationPairView } from '../handshake/federation-pair-records.js';
import { PairInitiatorToken, PairLifecycleToken, PairLogToken, PairResponderToken, PairRevokerToken } from '../handshake/handshake-tokens.js';
import { CreateFederationPairBody, FederationPairIdParams, FederationPairSchema, PairAnswerSchema, PairPollSchema, PairRequestSchema, RevokeNoticeSchema } from './handshake-schemas.js';

const HANDSHAKE_REFUSALS = ['INVALID_SHAPE', 'PAIR_SIGNATURE_INVALID', 'PAIR_REQUEST_STALE', 'PAIR_NONCE_REPLAYED', 'PAIR_MISDIRECTED', 'KEY_CHAIN_INVALID', 'KEY_EXPIRED'] as const;

export const requestFederationPair = defineRoute({
  operationId: 'requestFederationPair',
  method: 'POST',
  path: '/v1/federation/pair',
  summary: 'The pairing handshake: a signed pair request from another instance (no bearer)',
  description:
    "Authenticated by signatures, not a bearer: the initiator's federation manifest must verify against initiator_did, the body's sig against the same DID; " +
    'the nonce is single use (410 PAIR_NONCE_REPLAYED) and created within ±60 s (401 PAIR_REQUEST_STALE); a body addressed to another responder is 421. ' +
    'Refusals write nothing. With consent posture `open` the pair is approved at once: 200 with this instance\'s token for the initiator (90 days, ' +
    'federation:sync + federation:subscribe + the configured reads). With `pair-then-ask` it waits for an operator: 202, state establishing; the initiator ' +
    'polls POST /v1/federation/pair/{id}/poll. `invite-only` and `closed` answer 403 PAIR_REQUESTS_CLOSED. The answer is signed by this instance.',
  tags: ['federation'],
  auth: 'none',
  request: { body: PairRequestSchema },
  responses: { 200: { description: 'Approved: tokens minted, the pair is active.', schema: PairAnswerSchema }, 202: { description: 'Waiting for approval (establishing).', schema: PairAnswerSchema } },
  errors: [...HANDSHAKE_REFUSALS, 'PAIR_REQUESTS_CLOSED', 'PAIR_LIMIT_REACHED'],
  inject: { responder: PairResponderToken },
  handler: async ({ body }, { responder }) => {
    const answer = await responder.request(body);
    return Reply.json(answer.status, answer.body);
  },
});

export const pollFederationPair = defineRoute({
  operationId: 'pollFederationPair',
  method: 'POST',
  path: '/v1/federation/pair/{id}/poll',
  summary: "The initiator's signed refresh of a pair it requested (no bearer)",
  description: "Signed by the pair's initiator (the DID it paired with), fresh nonce and created. The signed answer carries the state and, once active, this instance's token for the initiator.",
  tags: ['federation'],
  auth: 'none',
  request: { params: FederationPairIdParams, body: PairPollSchema },
  responses: { 200: { description: 'The pair as this side holds it.', schema: PairAnswerSchema } },
  errors: [...HANDSHAKE_REFUSALS],
  inject: { responder: PairResponderToken },
  handler: ({ params, body }, { responder }) => responder.poll(params.id, body),
});

export const notifyFederationPairRevoked = defineRoute({
  operationId: 'notifyFederationPairRevoked',
  method: 'POST',
  path: '/v1/federation/pair/{id}/revoke',
  summary: "The peer's signed notice that it revoked the pair (no bearer)",
  description: "Signed by the pair's peer. This side then revokes too: its tokens for the peer die, pair.revoke.v1 is written, its sync pair stops. Idempotent.",
  tags: ['federation'],
  auth: 'none',
  request: { params: FederationPairIdParams, body: RevokeNoticeSchema },
  responses: { 200: { description: 'Revoked here too.', schema: Type.Object({ object: Type.Literal('pair_revoke_ack'), pair_id: Type.String(), state: Type.Literal('revoked') }, { $id: 'PairRevokeAck' }) } },
  errors: [...HANDSHAKE_REFUSALS],
  inject: { responder: PairResponderToken },
  handler: ({ params, body }, { responder }) => responder.noticeRevoked(params.id, body),
});

export const createFederationPair = defineRoute({
  operationId: 'createFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs',
  summary: 'Pair with another instance by URL (this side initiates the handshake)',
  description:
    "Fetches and verifies the peer's manifest, mints a token for it, sends the signed pair request. 201 with the pair active (tokens exchanged, a sync pair pulling the peer) " +
    "or 202 establishing (the peer's operator must approve; this instance polls until then). A peer that refuses or cannot be reached is 502 PAIR_HANDSHAKE_FAILED, " +
    'one that takes no requests 403 PAIR_REQUESTS_CLOSED; either way the token minted for it is revoked.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { body: CreateFederationPairBody },
  responses: { 201: { description: 'Active.', schema: FederationPairSchema }, 202: { description: 'Establishing (awaiting the peer operator).', schema: FederationPairSchema } },
  errors: ['INVALID_SHAPE', 'PAIR_HANDSHAKE_FAILED', 'PAIR_REQUESTS_CLOSED', 'PAIR_MISDIRECTED', 'PAIR_LIMIT_REACHED', 'KEY_CHAIN_INVALID'],
  inject: { initiator: PairInitiatorToken, options: FederationOptionsToken },
  handler: async ({ body, headers, caller }, { initiator, options }) => {
    const selfUrl = body.self_url ?? options.baseUrl ?? `http://${headers['host'] ?? '127.0.0.1'}`;
    const pair = await initiator.pair({ url: body.url, selfUrl, mode: body.mode ?? 'polling', pollIntervalMs: body.poll_interval_ms ?? null, by: actingDid(caller) });
    return Reply.json(pair.state === 'active' ? 201 : 202, federationPairView(pair));
  },
});

export const listFederationPairs = defineRoute({
  operationId: 'listFederationPairs',
  method: 'GET',
  path: '/v1/federation/pairs',
  summary: 'Federation pairs made by the handshake, every state (revoked kept for audit)',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  responses: { 200: { description: 'Every pair.', schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(FederationPairSchema) }, { $id: 'FederationPairList' }) } },
  errors: [],
  inject: { log: PairLogToken, lifecycle: PairLifecycleToken },
  handler: async (_input, { log, lifecycle }) => ({ object: 'list' as const, data: await Promise.all(log.all().map((pair) => lifecycle.view(pair))) }),
});

export const getFederationPair = defineRoute({
  operationId: 'getFederationPair',
  method: 'GET',
  path: '/v1/federation/pairs/{id}',
  summary: 'One federation pair: its state, mode, tokens, and while pulls fail last_error and next_retry_at',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams },
  responses: { 200: { description: 'The pair.', schema: FederationPairSchema } },
  errors: ['PAIR_NOT_FOUND'],
  inject: { log: PairLogToken, lifecycle: PairLifecycleToken },
  handler: ({ params }, { log, lifecycle }) => lifecycle.view(log.get(params.id)),
});

export const approveFederationPair = defineRoute({
  operationId: 'approveFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs/{id}/approve',
  summary: 'Approve a pair request waiting here (pair-then-ask): tokens minted, the pair active',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams },
  responses: { 200: { description: 'The pair, active.', schema: FederationPairSchema } },
  errors: ['PAIR_NOT_FOUND', 'PAIR_REVOKED', 'PAIR_STATE_CONFLICT', 'PAIR_LIMIT_REACHED', 'PAIR_REQUESTS_CLOSED'],
  inject: { responder: PairResponderToken },
  handler: async ({ params, caller }, { responder }) => federationPairView(await responder.approve(params.id, actingDid(caller))),
});

export const revokeFederationPair = defineRoute({
  operationId: 'revokeFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs/{id}/revoke',
  summary: 'Revoke a pair (terminal): its tokens die at once, pair.revoke.v1, the peer told best-effort',
  description: 'peer_notified: whether the peer acknowledged the signed notice (null when the pair was already revoked). Idempotent.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams, body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })) }, { additionalProperties: false })) },
  responses: { 200: { description: 'The pair, revoked.', schema: FederationPairSchema } },
  errors: ['PAIR_NOT_FOUND', 'INVALID_SHAPE'],
  inject: { revoker: PairRevokerToken },
  handler: async ({ params, body, caller }, { revoker }) => {
    const outcome = await revoker.revoke(params.id, { side: 'local', reason: body?.reason ?? 'revoked by an operator', by: actingDid(caller), notify: true });
    return { ...federationPairView(outcome.pair), peer_notified: outcome.peer_notified };
  },
});

export const FEDERATION_PAIR_ROUTES = [requestFederationPair, pollFederationPair, notifyFederationPairRevoked, createFederationPair, listFederationPairs, getFederationPair, approveFederationPair, revokeFederationPair] as const;
