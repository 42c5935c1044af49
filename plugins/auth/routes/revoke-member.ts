import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { MemberRevokedSchema } from '../identity-schemas.js';
import { MembershipServiceToken } from '../membership-service.js';

export const revokeMember = defineRoute({
  operationId: 'revokeMember',
  method: 'DELETE',
  path: '/v1/members/{label}',
  summary: 'Revoke a membership, cascading to every credential parented to its grant',
  description:
    'Revokes the label\'s membership grant; every grant delegated below it and every bearer parented to any of them answers 401 GRANT_REVOKED from the next request on. ' +
    'The caller must be an admin or the member itself (another member\'s label reads as not found). Idempotent: the same answer every time.',
  tags: ['auth'],
  auth: { scope: 'records:write' },
  request: {
    params: Type.Object({ label: Type.String({ maxLength: 63 }) }),
    body: Type.Optional(Type.Object({ note: Type.Optional(Type.String({ maxLength: 280 })) }, { additionalProperties: false })),
  },
  responses: { 200: { description: 'The membership, revoked, with what the revocation reached.', schema: MemberRevokedSchema } },
  errors: ['NOT_FOUND', 'INVALID_SHAPE'],
  inject: { memberships: MembershipServiceToken },
  handler: ({ params, body, caller }, { memberships }) => memberships.revokeMember(caller, params.label, body?.note ?? null),
});
