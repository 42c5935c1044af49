import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { MemberServiceToken } from '../member-service.js';
import { HistoryVersionSchema, MemberDidParams } from '../schemas.js';

/** Spec §8: history limit 20 by default. */
const DEFAULT_LIMIT = 20;

export const listActorHistory = defineRoute({
  operationId: 'listActorHistory',
  method: 'GET',
  path: '/v1/actors/{did}/history',
  summary: "A member's definition versions, newest first (owner only)",
  description: 'Each version with who wrote it and when, its model, words (by prompt record), tools, ceilings and what changed from the version before (tools compared as a set, words by record).',
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: MemberDidParams, query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, description: `Versions shown, newest first (default ${DEFAULT_LIMIT}).` })) }, { additionalProperties: false }) },
  responses: {
    200: {
      description: 'The versions.',
      schema: Type.Object(
        { object: Type.Literal('actor_history'), actor: Type.String(), total: Type.Integer(), truncated: Type.Boolean(), data: Type.Array(HistoryVersionSchema) },
        { $id: 'ActorHistory' },
      ),
    },
  },
  errors: ['OWNER_ONLY', 'ACTOR_UNKNOWN'],
  inject: { members: MemberServiceToken },
  handler: async ({ params, query, caller }, { members }) => ({ object: 'actor_history' as const, actor: params.did, ...(await members.history(caller, params.did, query.limit ?? DEFAULT_LIMIT)) }),
});
