import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { GrantServiceToken } from '../grant-service.js';
import { RevocationSummarySchema } from '../identity-schemas.js';

export const revokeGrant = defineRoute({
  operationId: 'revokeGrant',
  method: 'DELETE',
  path: '/v1/grants/{grant_id}',
  summary: 'Revoke a grant, every grant below it, and every credential parented to them',
  description:
    'From the next request on, every credential under the revoked subtree answers 401 GRANT_REVOKED. Allowed to an admin, the grant\'s issuer, the audience of any ancestor, and the audience itself. ' +
    'Idempotent: a second call answers the same. A grant the caller may not revoke reads as not found.',
  tags: ['auth'],
  auth: { scope: null },
  request: {
    params: Type.Object({ grant_id: Type.String({ pattern: '^[0-9a-f]{64}$' }) }),
    body: Type.Optional(Type.Object({ note: Type.Optional(Type.String({ maxLength: 280 })) }, { additionalProperties: false })),
  },
  responses: { 200: { description: 'Revoked, with what it reached.', schema: RevocationSummarySchema } },
  errors: ['NOT_FOUND', 'INVALID_SHAPE'],
  inject: { grants: GrantServiceToken },
  handler: async ({ params, body, caller }, { grants }) => ({ object: 'grant_revocation' as const, ...(await grants.revoke(caller, params.grant_id, body?.note ?? null)) }),
});
