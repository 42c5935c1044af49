import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { CredentialServiceToken } from '../credential-service.js';
import { askedBy } from '../service-account-view.js';

export const revokeServiceAccount = defineRoute({
  operationId: 'revokeServiceAccount',
  method: 'DELETE',
  path: '/v1/service-accounts/{id}',
  summary: 'Revoke a service account and every token it holds',
  description: 'From the next request on, its tokens answer 401 and no new ones can be minted. Idempotent.',
  tags: ['auth'],
  auth: { scope: 'admin' },
  request: { params: Type.Object({ id: Type.String({ maxLength: 80 }) }) },
  responses: {
    200: {
      description: 'Revoked.',
      schema: Type.Object({ object: Type.Literal('service_account'), id: Type.String(), status: Type.Literal('revoked') }, { $id: 'ServiceAccountRevoked' }),
    },
  },
  errors: ['NOT_FOUND'],
  inject: { credentials: CredentialServiceToken },
  handler: async ({ params, caller }, { credentials }) => {
    const account = await credentials.revokeAccount(params.id, askedBy(caller));
    return { object: 'service_account' as const, id: account.id, status: 'revoked' as const };
  },
});
