import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { MembershipIssuedSchema } from '../identity-schemas.js';
import { MembershipServiceToken } from '../membership-service.js';
import { membershipIssuedView } from '../invite-view.js';

export const redeemInvite = defineRoute({
  operationId: 'redeemInvite',
  method: 'POST',
  path: '/v1/invites/redeem',
  summary: 'Redeem a membership invite for a bearer',
  description:
    'No bearer: the invite token is the credential. Creates the membership (a grant to did:sync:user:<label>), its holder account and a bearer parented to the grant, shown once. ' +
    'label is required unless the invite pins one. Bind a recovery code (POST /v1/self/bindings) with the new bearer so you can re-credential later. ' +
    '404 INVITE_NOT_FOUND for an unknown or wrong token; 410 INVITE_EXPIRED, INVITE_REVOKED or INVITE_EXHAUSTED for one that no longer works; 409 MEMBER_LABEL_TAKEN.',
  tags: ['auth'],
  auth: 'none',
  request: {
    body: Type.Object(
      {
        invite: Type.String({ minLength: 1, maxLength: 200, description: 'The invite_token from POST /v1/invites.' }),
        label: Type.Optional(Type.String({ maxLength: 63 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 201: { description: 'The membership and its bearer (once).', schema: MembershipIssuedSchema } },
  errors: ['INVALID_SHAPE', 'INVITE_NOT_FOUND', 'INVITE_EXPIRED', 'INVITE_REVOKED', 'INVITE_EXHAUSTED', 'MEMBER_LABEL_TAKEN', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { memberships: MembershipServiceToken },
  handler: async ({ body }, { memberships }) => {
    const { grant, ...issued } = await memberships.redeem(body.invite, body.label);
    return Reply.json(201, membershipIssuedView(grant, issued));
  },
});
