import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecredentialDoorToken } from '../recredential-door.js';

export const recredential = defineRoute({
  operationId: 'recredential',
  method: 'POST',
  path: '/v1/recredential',
  summary: 'Get a new bearer with a proof instead of a bearer',
  description:
    'principal is your DID or member label. proof is {kind: recovery_code, evidence: "<26 characters>"} (single-use: rebind_required is true, bind a fresh code with the new bearer) ' +
    'or {kind: passkey, evidence: {credential_id, client_data_json, authenticator_data, signature, user_handle?}} over a challenge from POST /v1/recredential/challenge (reusable). ' +
    'The new bearer is parented to your existing live grant; nothing else changes. Refusals are constant-shape: 401 RECREDENTIAL_REFUSED for an unknown principal, no binding or a wrong proof alike; ' +
    '409 NO_LIVE_GRANT only after the proof verified; 429 RATE_LIMITED (3 attempts, then one per 5 s, per principal string and per address) before any proof is checked. Render messages verbatim.',
  tags: ['auth'],
  auth: 'none',
  request: {
    body: Type.Object(
      {
        principal: Type.String({ minLength: 1, maxLength: 2048 }),
        proof: Type.Object({ kind: Type.String({ maxLength: 32 }), evidence: Type.Unknown() }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    201: {
      description: 'A new bearer, shown once.',
      schema: Type.Object(
        {
          object: Type.Literal('recredential'),
          token: Type.String(),
          principal: Type.String(),
          expires_at: Type.String(),
          label: Type.Union([Type.String(), Type.Null()]),
          sa_id: Type.String(),
          scopes: Type.Array(Type.String()),
          rebind_required: Type.Boolean(),
        },
        { $id: 'Recredential' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'RECREDENTIAL_REFUSED', 'NO_LIVE_GRANT', 'RATE_LIMITED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { door: RecredentialDoorToken },
  handler: async ({ body, remoteAddress }, { door }) => Reply.json(201, await door.recredential(body, remoteAddress)),
});
