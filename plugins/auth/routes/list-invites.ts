import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { InviteSchema } from '../identity-schemas.js';
import { inviteView } from '../invite-view.js';
import { MembershipServiceToken } from '../membership-service.js';

export const listInvites = defineRoute({
  operationId: 'listInvites',
  method: 'GET',
  path: '/v1/invites',
  summary: 'Every invite issued, with its state and uses',
  tags: ['auth'],
  auth: { scope: 'admin' },
  responses: { 200: { description: 'Newest first.', schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(InviteSchema) }, { $id: 'InviteList' }) } },
  errors: [],
  inject: { memberships: MembershipServiceToken },
  handler: (_input, { memberships }) => ({
    object: 'list' as const,
    data: memberships.invites().reverse().map((invite) => inviteView(invite, memberships.inviteState(invite))),
  }),
});
