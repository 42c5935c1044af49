import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { InviteSchema } from '../identity-schemas.js';
import { inviteView } from '../invite-view.js';
import { MembershipServiceToken } from '../membership-service.js';
import { ScopeList } from '../schemas.js';

export const createInvite = defineRoute({
  operationId: 'createInvite',
  method: 'POST',
  path: '/v1/invites',
  summary: 'Issue a membership invite',
  description:
    'membership names a preset (reader, contributor, admin; default contributor) or explicit scopes, optionally a pinned label (renewing that member when redeemed), and grant_ttl_seconds ' +
    '(the membership grant\'s lifetime, default and cap from the grant_lifetime topic). The invite lives ttl_seconds (default 24 h) for max_uses redemptions (default 1). ' +
    'invite_token is in this response only: whoever holds it redeems with POST /v1/invites/redeem. Admin only, even while auth enforcement is off.',
  tags: ['auth'],
  auth: { scope: 'admin', always: true },
  request: {
    body: Type.Object(
      {
        membership: Type.Object(
          {
            preset: Type.Optional(Type.Union([Type.Literal('reader'), Type.Literal('contributor'), Type.Literal('admin')])),
            scopes: Type.Optional(ScopeList),
            label: Type.Optional(Type.String({ maxLength: 63 })),
            grant_ttl_seconds: Type.Optional(Type.Integer({ minimum: 3600, maximum: 10 * 366 * 86400 })),
          },
          { additionalProperties: false },
        ),
        ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 30 * 86400 })),
        max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        note: Type.Optional(Type.String({ maxLength: 280 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 201: { description: 'The invite, with its invite_token (once).', schema: InviteSchema } },
  errors: ['INVALID_SHAPE', 'GRANT_REFUSED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { memberships: MembershipServiceToken },
  handler: async ({ body, caller }, { memberships }) => {
    const { invite, token } = await memberships.createInvite(caller, body);
    return Reply.json(201, { ...inviteView(invite, memberships.inviteState(invite)), invite_token: token });
  },
});
