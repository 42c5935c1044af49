import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { MembershipIssuedSchema } from '../identity-schemas.js';
import { MembershipServiceToken } from '../membership-service.js';
import { membershipIssuedView } from '../invite-view.js';
import { ScopeList } from '../schemas.js';

export const adoptMember = defineRoute({
  operationId: 'adoptMember',
  method: 'POST',
  path: '/v1/members/adopt',
  summary: 'Make an existing service account\'s holder, or an actor, a member',
  description:
    'With sa_id: the account\'s live bearers keep working, now parented to the new membership grant (revoking the member reaches them); scopes default to the account\'s. ' +
    'With did: a bearer for that actor is minted under the grant and shown once. preset or scopes set the membership\'s scopes.',
  tags: ['auth'],
  auth: { scope: 'admin' },
  request: {
    body: Type.Object(
      {
        label: Type.String({ minLength: 1, maxLength: 63 }),
        sa_id: Type.Optional(Type.String({ maxLength: 80 })),
        did: Type.Optional(Type.String({ maxLength: 2048 })),
        preset: Type.Optional(Type.Union([Type.Literal('reader'), Type.Literal('contributor'), Type.Literal('admin')])),
        scopes: Type.Optional(ScopeList),
        grant_ttl_seconds: Type.Optional(Type.Integer({ minimum: 3600, maximum: 10 * 366 * 86400 })),
        note: Type.Optional(Type.String({ maxLength: 280 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 201: { description: 'The membership (and a bearer when an actor was adopted).', schema: MembershipIssuedSchema } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'MEMBER_LABEL_TAKEN', 'GRANT_REFUSED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { memberships: MembershipServiceToken },
  handler: async ({ body, caller }, { memberships }) => {
    const { grant, ...issued } = await memberships.adopt(caller, body);
    return Reply.json(201, membershipIssuedView(grant, { ...issued, renewed: false }));
  },
});
