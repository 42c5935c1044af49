import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { SelfServiceToken } from '../self-service.js';

export const createSelfBindingChallenge = defineRoute({
  operationId: 'createSelfBindingChallenge',
  method: 'POST',
  path: '/v1/self/bindings/challenge',
  summary: 'Start a passkey registration',
  description:
    'Answers the challenge, relying party and user handle for navigator.credentials.create (options is the whole PublicKeyCredentialCreationOptionsJSON: attestation none, a discoverable credential, no extensions). ' +
    'The challenge is single-use and lives five minutes. 409 PASSKEY_NOT_ACCEPTED while the instance declares no relying party (configuration topic passkey_rp).',
  tags: ['auth'],
  auth: { scope: null },
  request: { body: Type.Object({ kind: Type.Literal('passkey') }, { additionalProperties: false }) },
  responses: {
    200: {
      description: 'The registration challenge.',
      schema: Type.Object(
        {
          challenge: Type.String(),
          rp: Type.Object({ id: Type.String(), name: Type.String() }),
          user: Type.Object({ id: Type.String(), name: Type.String(), display_name: Type.String() }),
          expires_at: Type.String(),
          options: Type.Record(Type.String(), Type.Unknown()),
        },
        { $id: 'PasskeyRegistrationChallenge' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'PASSKEY_NOT_ACCEPTED', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { self: SelfServiceToken },
  handler: async ({ caller }, { self }) => (await self.passkeyChallenge(caller)) as never,
});
