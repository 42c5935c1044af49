import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { K_DEFAULT, K_MAX } from '../semantic-search.js';
import { SemanticSearchToken } from '../search-token.js';
import { SearchResult } from './schemas.js';

export const searchRecords = defineRoute({
  operationId: 'searchRecords',
  method: 'POST',
  path: '/v1/records/search',
  summary: 'Semantic search over records',
  description:
    'Embeds `query` with the configured embedding provider and answers the k records most similar to it (cosine) among those that match the filters and that the caller may read. ' +
    '`k` defaults to 10 and is clamped to 1..100; the page is shorter than k only when fewer records qualify. Filters: `thread`, `actor`, `kind` (body.kind), `after_clock` (clock > N).',
  tags: ['search'],
  auth: { scope: 'records:read' },
  request: {
    body: Type.Object(
      {
        query: Type.String({ maxLength: 8_000 }),
        k: Type.Optional(Type.Integer({ description: 'Clamped to 1..100.' })),
        thread: Type.Optional(Type.String({ maxLength: 256 })),
        actor: Type.Optional(Type.String({ maxLength: 2048 })),
        kind: Type.Optional(Type.String({ maxLength: 256 })),
        after_clock: Type.Optional(Type.Integer()),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'The most similar records, best first.', schema: SearchResult } },
  errors: ['EMPTY_QUERY', 'INVALID_SHAPE', 'EMBEDDER_FAILED', 'SEMANTIC_SEARCH_DISABLED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { semantic: SemanticSearchToken },
  handler: async ({ body, caller }, { semantic }) => {
    const k = Math.min(K_MAX, Math.max(1, body.k ?? K_DEFAULT));
    const answer = await semantic.search(caller, { query: body.query, k, thread: body.thread, actor: body.actor, kind: body.kind, afterClock: body.after_clock });
    return { object: 'list' as const, embedder: answer.embedder, k, data: answer.hits.map(({ stored, score }) => ({ ...stored.record, score })) };
  },
});
