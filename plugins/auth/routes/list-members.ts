import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { MemberSchema } from '../identity-schemas.js';
import { MembershipServiceToken } from '../membership-service.js';

export const listMembers = defineRoute({
  operationId: 'listMembers',
  method: 'GET',
  path: '/v1/members',
  summary: 'Members, each label\'s newest membership',
  description: 'An admin sees every row; any other caller only its own (spec §5.5). A short list is the complete answer for that caller.',
  tags: ['auth'],
  auth: { scope: 'records:read' },
  responses: { 200: { description: 'By label.', schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(MemberSchema) }, { $id: 'MemberList' }) } },
  errors: [],
  inject: { memberships: MembershipServiceToken },
  handler: ({ caller }, { memberships }) => ({ object: 'list' as const, data: memberships.members(caller) }),
});
