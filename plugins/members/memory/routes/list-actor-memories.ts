import { Type } from 'typebox';
import { defineRoute } from '../../../../core/plugin/route.js';
import { MemberDidParams } from '../../schemas.js';
import { MemoryServiceToken } from '../memory-service.js';
import { MemoryRowSchema } from '../memory-schemas.js';
import { MemoryTypeSchema } from '../memory.js';

/** Default page; at most 100 (clamped), like find (spec §8). */
const DEFAULT_LIMIT = 20;

export const listActorMemories = defineRoute({
  operationId: 'listActorMemories',
  method: 'GET',
  path: '/v1/actors/{did}/memories',
  summary: "A member's live memories (its owner, itself or an operator)",
  description:
    'The memories in force (the newest of each name, cancelled ones left out), newest first. `domain` and `type` filter exactly. `search` ranks through the find index when the search plugin is loaded ' +
    '(name, description, type and domain words; memories not indexed yet and tag matches follow, newest first); without it every word must appear, ignoring case, in the name, the description or a tag. ' +
    '`limit` defaults to 20 and is clamped to 1..100.',
  tags: ['members'],
  auth: { scope: 'records:read' },
  invalidInput: 'INVALID_QUERY',
  request: {
    params: MemberDidParams,
    query: Type.Object(
      {
        search: Type.Optional(Type.String({ maxLength: 500 })),
        domain: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        type: Type.Optional(MemoryTypeSchema),
        limit: Type.Integer({ minimum: 1, maximum: 100, default: DEFAULT_LIMIT }),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    200: {
      description: 'The memories.',
      schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(MemoryRowSchema), has_more: Type.Boolean({ description: 'More memories matched than `limit`.' }) }, { $id: 'MemoryList' }),
    },
  },
  errors: ['INVALID_QUERY', 'ACTOR_UNKNOWN', 'FORBIDDEN'],
  inject: { memories: MemoryServiceToken },
  handler: ({ params, query, caller }, { memories }) => ({ object: 'list' as const, ...memories.list(caller, params.did, query) }),
});
