import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { MemberServiceToken } from '../member-service.js';
import { MemberDidParams } from '../schemas.js';

export const retireActor = defineRoute({
  operationId: 'retireActor',
  method: 'DELETE',
  path: '/v1/actors/{did}/definition',
  summary: 'Retire a member (its definer or an operator)',
  description:
    'Revokes its permission (its writes are refused from now on), removes it as a thread default, then disables it, in one definition version. A retired member cannot be shaped, reverted or run; define it again instead. Retiring a retired member changes nothing.',
  tags: ['members'],
  auth: { scope: 'records:write' },
  request: { params: MemberDidParams },
  responses: { 200: { description: 'Retired.', schema: Type.Object({ object: Type.Literal('actor'), did: Type.String(), retired: Type.Literal(true) }, { $id: 'RetiredActor' }) } },
  errors: ['NO_SUCH_ACTOR', 'RETIRE_FORBIDDEN'],
  inject: { members: MemberServiceToken },
  handler: async ({ params, caller }, { members }) => {
    await members.retire(caller, params.did);
    return { object: 'actor' as const, did: params.did, retired: true as const };
  },
});
