import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FindServiceToken, SemanticSearchToken } from '../search-token.js';
import { SearchStats } from './schemas.js';

export const getSearchStats = defineRoute({
  operationId: 'getSearchStats',
  method: 'GET',
  path: '/v1/search/stats',
  summary: 'Search index health',
  description: 'Coverage of the find index (documents, how far it has read the log, pending records and namespaces, last failure) and of semantic search (provider state, vectors per model, pending records, last failure). Counts span every tenant, so admin only.',
  tags: ['search'],
  auth: { scope: 'admin' },
  responses: { 200: { description: 'Index health.', schema: SearchStats } },
  errors: [],
  inject: { finder: FindServiceToken, semantic: SemanticSearchToken },
  handler: async (_input, { finder, semantic }) => ({ object: 'search_stats' as const, find: finder.stats(), semantic: await semantic.stats() }),
});

export const rebuildSearch = defineRoute({
  operationId: 'rebuildSearch',
  method: 'POST',
  path: '/v1/search/rebuild',
  summary: 'Drop and re-index the find index',
  description: 'Drops the documents of `scope` (materials, threads or all; default all) and indexes them again from the log in the background; GET /v1/search/stats shows progress. Finds meanwhile answer from what is indexed and list the planes being rebuilt in planes_degraded.',
  tags: ['search'],
  auth: { scope: 'admin' },
  request: { body: Type.Optional(Type.Object({ scope: Type.Optional(Type.Union([Type.Literal('materials'), Type.Literal('threads'), Type.Literal('all')])) }, { additionalProperties: false })) },
  responses: {
    202: {
      description: 'Rebuild started.',
      schema: Type.Object({ object: Type.Literal('search_rebuild'), scope: Type.String(), dropped: Type.Integer({ description: 'Documents dropped.' }) }, { $id: 'SearchRebuild' }),
    },
  },
  errors: ['INVALID_SHAPE', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { finder: FindServiceToken },
  handler: async ({ body }, { finder }) => {
    const scope = body?.scope ?? 'all';
    return Reply.json(202, { object: 'search_rebuild' as const, scope, ...finder.rebuild(scope) });
  },
});
