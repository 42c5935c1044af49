/**
 * The instance's signing keys (issue 35, key rotation; federation:manage):
 * which key signs now and the previous keys with their expired_ts, and the
 * rotation itself (`loom federation rotate-key`).
 */
import { Type } from 'typebox';
import { actingDid } from '../../../core/access/caller.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { KeyRotationToken } from '../keys/key-tokens.js';

const DidKey = Type.String({ pattern: '^did:key:z[1-9A-HJ-NP-Za-km-z]{40,60}$' });

const FederationKeysSchema = Type.Object(
  {
    object: Type.Literal('federation_keys'),
    did: Type.String({ description: 'The instance DID: the did:key of its first key, unchanged by rotations.' }),
    key: DidKey,
    previous: Type.Array(
      Type.Object({
        key: DidKey,
        succeeded_by: DidKey,
        rotated_at: Type.String(),
        expired_ts: Type.Integer({ description: 'ms since the epoch; from then on signatures by this key are refused (KEY_EXPIRED).' }),
        expires_at: Type.String(),
        state: Type.Union([Type.Literal('overlap'), Type.Literal('expired')]),
      }),
    ),
    overlap_seconds: Type.Integer({ description: 'The default overlap of a rotation (the federation option keyOverlapSeconds).' }),
    rotatable: Type.Boolean({ description: 'False on a shared log or for a key kept in no directory (rotate answers 409 KEY_ROTATION_UNAVAILABLE).' }),
    rotated_from: Type.Optional(DidKey),
  },
  { additionalProperties: false, $id: 'FederationKeys' },
);

export const getFederationKeys = defineRoute({
  operationId: 'getFederationKeys',
  method: 'GET',
  path: '/v1/federation/keys',
  summary: "This instance's signing key and its previous keys with their expired_ts",
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: {},
  responses: { 200: { description: 'The keys.', schema: FederationKeysSchema } },
  errors: [],
  inject: { rotation: KeyRotationToken },
  handler: async (_request, { rotation }) => rotation.view(),
});

export const rotateFederationKey = defineRoute({
  operationId: 'rotateFederationKey',
  method: 'POST',
  path: '/v1/federation/keys/rotate',
  summary: 'Rotate the instance signing key; the old key countersigns the new one and stays valid for the overlap',
  description:
    'A new Ed25519 key is written (durably) before anything is signed with it, then signs the manifest, pages and handshake bodies. ' +
    'The manifest lists it as keys.current and the old key under keys.previous with its expired_ts and the countersignature by which it named its successor, ' +
    'so a peer that pinned the old key follows without re-pairing. Signatures by the old key are refused once expired_ts passes. ' +
    'The instance DID does not change. Recorded as federation.key_rotation.v1 on th_federation_pairs.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { body: Type.Optional(Type.Object({ overlap_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 90 * 86_400, description: 'How long the old key stays valid. @default the option keyOverlapSeconds (7 days)' })) }, { additionalProperties: false })) },
  responses: { 200: { description: 'The keys after the rotation.', schema: FederationKeysSchema } },
  errors: ['INVALID_SHAPE', 'KEY_ROTATION_UNAVAILABLE'],
  inject: { rotation: KeyRotationToken },
  handler: async ({ body, caller }, { rotation }) => rotation.rotate({ overlap_seconds: body?.overlap_seconds }, actingDid(caller)),
});

export const FEDERATION_KEY_ROUTES = [getFederationKeys, rotateFederationKey] as const;
