import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { SelfServiceToken } from '../self-service.js';

const Proof = Type.Union([
  Type.String({ maxLength: 64, description: 'Your current recovery code.' }),
  Type.Object({ kind: Type.Union([Type.Literal('recovery_code'), Type.Literal('passkey')]), evidence: Type.Unknown() }, { additionalProperties: false }),
]);

export const createSelfBinding = defineRoute({
  operationId: 'createSelfBinding',
  method: 'POST',
  path: '/v1/self/bindings',
  summary: 'Bind a proof you can re-credential with',
  description:
    '{kind: recovery_code} answers a fresh 26-character code once (the log keeps only its hash; it replaces any earlier code). ' +
    '{kind: passkey, material: {credential_id, client_data_json, attestation_object, transports?}} binds a passkey registered over a challenge from POST /v1/self/bindings/challenge. ' +
    '{kind: account} needs an account verifier, which this instance does not declare (409 ACCOUNT_NOT_ACCEPTED). ' +
    'A second binding of a kind needs rotation_proof: your current recovery code, or for a passkey an assertion over a re-credential challenge (409 ROTATION_REQUIRES_PROOF).',
  tags: ['auth'],
  auth: { scope: null },
  request: {
    body: Type.Object(
      {
        kind: Type.Union([Type.Literal('recovery_code'), Type.Literal('passkey'), Type.Literal('account')]),
        material: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        rotation_proof: Type.Optional(Proof),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    201: {
      description: 'Bound. secret (a recovery code) is in this response only.',
      schema: Type.Object(
        {
          object: Type.Literal('binding'),
          id: Type.String(),
          code_id: Type.String(),
          principal: Type.String(),
          kind: Type.String(),
          created_at: Type.String(),
          secret: Type.Optional(Type.String({ description: '26 Crockford base32 characters, shown once.' })),
        },
        { $id: 'Binding' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'ROTATION_REQUIRES_PROOF', 'PASSKEY_NOT_ACCEPTED', 'ACCOUNT_NOT_ACCEPTED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { self: SelfServiceToken },
  handler: async ({ body, caller }, { self }) => Reply.json(201, await self.bind(caller, body as never)),
});
