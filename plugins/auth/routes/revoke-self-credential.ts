import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { SelfServiceToken } from '../self-service.js';

export const revokeSelfCredential = defineRoute({
  operationId: 'revokeSelfCredential',
  method: 'DELETE',
  path: '/v1/self/credentials/{bearer_id}',
  summary: 'Revoke one of your bearers',
  description: 'It fails its next request with 401; your other bearers and your grant are untouched. Another principal\'s bearer and one that does not exist both answer 404 CREDENTIAL_NOT_FOUND.',
  tags: ['auth'],
  auth: { scope: null },
  request: { params: Type.Object({ bearer_id: Type.String({ maxLength: 64 }) }) },
  responses: {
    200: {
      description: 'Revoked.',
      schema: Type.Object({ object: Type.Literal('credential'), bearer_id: Type.String(), revoked: Type.Literal(true) }, { $id: 'SelfCredentialRevoked' }),
    },
  },
  errors: ['CREDENTIAL_NOT_FOUND'],
  inject: { self: SelfServiceToken },
  handler: ({ params, caller }, { self }) => self.revokeCredential(caller, params.bearer_id),
});
