import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { EMBED_LIMIT_DEFAULT, EMBED_LIMIT_MAX } from '../semantic-search.js';
import { SemanticSearchToken } from '../search-token.js';
import { EmbedReport } from './schemas.js';

export const embedRecords = defineRoute({
  operationId: 'embedRecords',
  method: 'POST',
  path: '/v1/records/embed',
  summary: 'Embed records that lack a vector (backfill)',
  description:
    'Embeds, synchronously, up to `limit` records (default 100, clamped to 1..500) that have no vector under the active model, in log order. ' +
    'Call again until `has_more` is false. New records are embedded in the background after they are stored; this backfills after a model change or an outage.',
  tags: ['search'],
  auth: { scope: 'admin' },
  request: { body: Type.Optional(Type.Object({ limit: Type.Optional(Type.Integer({ description: 'Clamped to 1..500.' })) }, { additionalProperties: false })) },
  responses: { 200: { description: 'What this call did and what is left.', schema: EmbedReport } },
  errors: ['INVALID_SHAPE', 'EMBEDDER_FAILED', 'SEMANTIC_SEARCH_DISABLED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { semantic: SemanticSearchToken },
  handler: async ({ body }, { semantic }) => {
    const limit = Math.min(EMBED_LIMIT_MAX, Math.max(1, body?.limit ?? EMBED_LIMIT_DEFAULT));
    return { object: 'embed_report' as const, ...(await semantic.backfill(limit)) };
  },
});
