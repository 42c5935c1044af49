import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { InviteSchema } from '../identity-schemas.js';
import { inviteView } from '../invite-view.js';
import { MembershipServiceToken } from '../membership-service.js';
import { askedBy } from '../service-account-view.js';

export const revokeInvite = defineRoute({
  operationId: 'revokeInvite',
  method: 'DELETE',
  path: '/v1/invites/{invite_id}',
  summary: 'Revoke an invite so it can no longer be redeemed',
  description: 'Memberships already created through it are untouched (revoke those with DELETE /v1/members/{label}). Idempotent.',
  tags: ['auth'],
  auth: { scope: 'admin', always: true },
  request: { params: Type.Object({ invite_id: Type.String({ maxLength: 64 }) }) },
  responses: { 200: { description: 'The invite, revoked.', schema: InviteSchema } },
  errors: ['INVITE_NOT_FOUND'],
  inject: { memberships: MembershipServiceToken },
  handler: async ({ params, caller }, { memberships }) => {
    const invite = await memberships.revokeInvite(params.invite_id, askedBy(caller));
    return inviteView(invite, memberships.inviteState(invite));
  },
});
