import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ACTOR_DIRECTORY_FOLD, didKind, summarise, type ActorDirectoryState } from '../actor-directory-fold.js';
import { ActorListSchema } from '../schemas.js';

export const listActors = defineRoute({
  operationId: 'listActors',
  method: 'GET',
  path: '/v1/actors',
  summary: 'Actors seen on coordination threads',
  description: 'In DID order, paged with after=next_cursor; only actors of records the caller may see.',
  tags: ['actors'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        kind: Type.Optional(Type.String({ pattern: '^[a-z0-9]{1,32}$', description: 'user, agent, system, key, web…' })),
        after: Type.Optional(Type.String({ maxLength: 512, description: 'next_cursor of the previous page.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'A page of actors.', schema: ActorListSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ query, caller }, { reader }) => {
    const { state, watermark } = await reader.globalFoldState<ActorDirectoryState>(caller, ACTOR_DIRECTORY_FOLD);
    const limit = query.limit ?? 100;
    const dids = [...state.actors.keys()].filter((did) => (query.after === undefined || did > query.after) && (query.kind === undefined || didKind(did) === query.kind)).sort();
    const page = dids.slice(0, limit);
    const hasMore = dids.length > limit;
    return {
      object: 'list' as const,
      watermark,
      data: page.map((did) => summarise(state.actors.get(did)!)),
      has_more: hasMore,
      next_cursor: hasMore ? page[page.length - 1]! : null,
    };
  },
});
