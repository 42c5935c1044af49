/**
 * The federation pair's life after the handshake (spec §3, §4.13 operator
 * lifecycle operations; federation:manage): pause, resume, mode and poll
 * interval, refresh, notify-revoke; and the peer's signed token renewal
 * (no bearer: the pinned peer DID signs, like the poll).
 */
import { actingDid } from '../../../core/access/caller.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { PairLifecycleToken, TokenRenewalToken } from '../handshake/handshake-tokens.js';
import { FederationPairIdParams, FederationPairSchema, PairSettingsBody, TokenRenewedSchema, TokenRenewSchema } from './handshake-schemas.js';

const ONE_PAIR = ['PAIR_NOT_FOUND', 'PAIR_REVOKED'] as const;

export const pauseFederationPair = defineRoute({
  operationId: 'pauseFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs/{id}/pause',
  summary: 'Pause a pair (reversible): this side pulls nothing and serves nothing to the peer',
  description:
    'Records `paused`; the sync pair stops pulling (its cursor kept), the peer\'s open feeds are cut and its token is refused 409 PAIR_PAUSED on the sync routes until resume. ' +
    'The tokens stay valid (and are renewed). Idempotent; an establishing pair is 409 PAIR_STATE_CONFLICT.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams },
  responses: { 200: { description: 'The pair, paused.', schema: FederationPairSchema } },
  errors: [...ONE_PAIR, 'PAIR_STATE_CONFLICT'],
  inject: { lifecycle: PairLifecycleToken },
  handler: async ({ params, caller }, { lifecycle }) => lifecycle.view(await lifecycle.pause(params.id, actingDid(caller))),
});

export const resumeFederationPair = defineRoute({
  operationId: 'resumeFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs/{id}/resume',
  summary: 'Resume a paused pair from its saved cursor',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams },
  responses: { 200: { description: 'The pair, active.', schema: FederationPairSchema } },
  errors: [...ONE_PAIR],
  inject: { lifecycle: PairLifecycleToken },
  handler: async ({ params, caller }, { lifecycle }) => lifecycle.view(await lifecycle.resume(params.id, actingDid(caller))),
});

export const configureFederationPair = defineRoute({
  operationId: 'configureFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs/{id}/settings',
  summary: "Set how this side pulls the peer: mode (polling, continuous, on-demand, longpoll) and the polling interval",
  description: 'Records `settings`; the running pull takes them at once. on-demand pulls only on refresh. The poll interval also caps the retry backoff.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams, body: PairSettingsBody },
  responses: { 200: { description: 'The pair with its new settings.', schema: FederationPairSchema } },
  errors: [...ONE_PAIR, 'INVALID_SHAPE'],
  inject: { lifecycle: PairLifecycleToken },
  handler: async ({ params, body, caller }, { lifecycle }) => lifecycle.view(await lifecycle.configure(params.id, body, actingDid(caller))),
});

export const refreshFederationPair = defineRoute({
  operationId: 'refreshFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs/{id}/refresh',
  summary: "Refetch and verify the peer's manifest (peer_manifest_changed when it differs), then pull now",
  description:
    "The manifest must verify against the pair's pinned DID (else 502 PAIR_HANDSHAKE_FAILED and nothing changes). A manifest that differs from the snapshot " +
    '(its signature block aside) is recorded as `peer_manifest_changed` and becomes the snapshot; the pair then pulls at once. An establishing pair this side initiated is polled instead.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams },
  responses: { 200: { description: 'The pair; manifest_changed says whether the manifest differed.', schema: FederationPairSchema } },
  errors: [...ONE_PAIR, 'PAIR_HANDSHAKE_FAILED', 'PAIR_STATE_CONFLICT'],
  inject: { lifecycle: PairLifecycleToken },
  handler: async ({ params }, { lifecycle }) => {
    const outcome = await lifecycle.refresh(params.id);
    return { ...(await lifecycle.view(outcome.pair)), manifest_changed: outcome.manifest_changed };
  },
});

export const notifyRevokeFederationPair = defineRoute({
  operationId: 'notifyRevokeFederationPair',
  method: 'POST',
  path: '/v1/federation/pairs/{id}/notify-revoke',
  summary: 'Send the signed revoke notice to the peer again (it missed the first)',
  description: 'Only for a revoked pair (else 409 PAIR_STATE_CONFLICT). peer_notified: whether the peer acknowledged it.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: FederationPairIdParams },
  responses: { 200: { description: 'The pair, with peer_notified.', schema: FederationPairSchema } },
  errors: ['PAIR_NOT_FOUND', 'PAIR_STATE_CONFLICT'],
  inject: { lifecycle: PairLifecycleToken },
  handler: async ({ params }, { lifecycle }) => {
    const outcome = await lifecycle.notifyRevoke(params.id);
    return { ...(await lifecycle.view(outcome.pair)), peer_notified: outcome.peer_notified };
  },
});

export const renewFederationPairToken = defineRoute({
  operationId: 'renewFederationPairToken',
  method: 'POST',
  path: '/v1/federation/pair/{id}/renew',
  summary: "The peer's signed request for a new token before its own expires (no bearer)",
  description:
    "Signed by the pair's pinned peer DID, fresh nonce (410 on replay) and created (±60 s). Answered with a new 90-day token in a signed body bound to the nonce; " +
    'the old token is revoked once the peer uses the new one.',
  tags: ['federation'],
  auth: 'none',
  request: { params: FederationPairIdParams, body: TokenRenewSchema },
  responses: { 200: { description: 'The new token.', schema: TokenRenewedSchema } },
  errors: ['INVALID_SHAPE', 'PAIR_SIGNATURE_INVALID', 'PAIR_REQUEST_STALE', 'PAIR_NONCE_REPLAYED', 'PAIR_MISDIRECTED', 'PAIR_NOT_FOUND', 'PAIR_REVOKED', 'PAIR_STATE_CONFLICT', 'PAIR_REQUESTS_CLOSED', 'KEY_CHAIN_INVALID', 'KEY_EXPIRED'],
  inject: { renewal: TokenRenewalToken },
  handler: ({ params, body }, { renewal }) => renewal.answer(params.id, body),
});

export const FEDERATION_PAIR_LIFECYCLE_ROUTES = [pauseFederationPair, resumeFederationPair, configureFederationPair, refreshFederationPair, notifyRevokeFederationPair, renewFederationPairToken] as const;
