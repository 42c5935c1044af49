import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecredentialDoorToken } from '../recredential-door.js';

export const createRecredentialChallenge = defineRoute({
  operationId: 'createRecredentialChallenge',
  method: 'POST',
  path: '/v1/recredential/challenge',
  summary: 'A challenge to sign with a bound passkey',
  description: 'The same shape for every principal string, whether or not it exists. Single-use, five minutes. Rate-limited per principal string and per client address (429 RATE_LIMITED).',
  tags: ['auth'],
  auth: 'none',
  request: { body: Type.Object({ principal: Type.String({ minLength: 1, maxLength: 2048 }), kind: Type.Literal('passkey') }, { additionalProperties: false }) },
  responses: {
    200: {
      description: 'The challenge.',
      schema: Type.Object({ challenge: Type.String(), rp_id: Type.String(), expires_at: Type.String() }, { $id: 'RecredentialChallenge' }),
    },
  },
  errors: ['INVALID_SHAPE', 'PASSKEY_NOT_ACCEPTED', 'RATE_LIMITED', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { door: RecredentialDoorToken },
  handler: ({ body, remoteAddress }, { door }) => door.challenge(body.principal, body.kind, remoteAddress),
});
