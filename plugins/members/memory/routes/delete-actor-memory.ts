import { Type } from 'typebox';
import { defineRoute } from '../../../../core/plugin/route.js';
import { MemberNameParams } from '../memory-schemas.js';
import { MemoryServiceToken } from '../memory-service.js';

export const deleteActorMemory = defineRoute({
  operationId: 'deleteActorMemory',
  method: 'DELETE',
  path: '/v1/actors/{did}/memories/{name}',
  summary: "Cancel one of a member's memories (its owner, itself or an operator)",
  description: 'Writes a cancellation record ({status: cancelled}) citing the memory in force, so history keeps both; the memory leaves the list. 404 MEMORY_NOT_FOUND when no memory of the name is in force.',
  tags: ['members'],
  auth: { scope: 'records:write' },
  request: { params: MemberNameParams },
  responses: {
    200: {
      description: 'Cancelled.',
      schema: Type.Object({ object: Type.Literal('memory'), name: Type.String(), status: Type.Literal('cancelled'), record: Type.String({ description: 'The cancellation record.' }) }, { $id: 'MemoryCancelled' }),
    },
  },
  errors: ['ACTOR_UNKNOWN', 'FORBIDDEN', 'MEMORY_NOT_FOUND'],
  inject: { memories: MemoryServiceToken },
  handler: async ({ params, caller }, { memories }) => {
    const { record } = await memories.cancel(caller, params.did, params.name);
    return { object: 'memory' as const, name: params.name, status: 'cancelled' as const, record };
  },
});
