import { Type } from 'typebox';
import { defineRoute } from '../../../../core/plugin/route.js';
import { Reply } from '../../../../core/plugin/reply.js';
import { MemberDidParams } from '../../schemas.js';
import { memoryFromRequest } from '../memory-input.js';
import { MemoryServiceToken } from '../memory-service.js';
import { MemoryInputSchema, MEMORY_TYPES } from '../memory.js';

export const addActorMemory = defineRoute({
  operationId: 'addActorMemory',
  method: 'POST',
  path: '/v1/actors/{did}/memories',
  summary: 'Give a member a memory (its owner, itself or an operator)',
  description:
    `Writes a memory record on the member's memory thread. Required: name, memory_type (${MEMORY_TYPES.join(', ')}), description; confidence defaults to 0.8. ` +
    'A memory of a name the member already holds supersedes it (the newest stands; history keeps both). A retired member takes no new memories. A refused request writes nothing.',
  tags: ['members'],
  auth: { scope: 'records:write' },
  bodyValidation: 'handler',
  invalidInput: 'INVALID_BODY',
  request: { params: MemberDidParams, body: MemoryInputSchema },
  responses: {
    201: {
      description: 'Written.',
      schema: Type.Object(
        {
          object: Type.Literal('memory'),
          name: Type.String(),
          status: Type.Literal('created'),
          thread: Type.String({ description: 'The member’s memory thread.' }),
          record: Type.String(),
          superseded: Type.Union([Type.String(), Type.Null()], { description: 'The record of the memory of this name it replaced.' }),
        },
        { $id: 'MemoryCreated' },
      ),
    },
  },
  errors: ['INVALID_BODY', 'MISSING_FIELD', 'ACTOR_UNKNOWN', 'FORBIDDEN', 'ACTOR_RETIRED'],
  inject: { memories: MemoryServiceToken },
  handler: async ({ params, body, caller }, { memories }) => {
    const fields = memoryFromRequest(body);
    const written = await memories.add(caller, params.did, fields);
    return Reply.json(201, { object: 'memory' as const, name: fields.name, status: 'created' as const, ...written });
  },
});
