import { defineRoute } from '../../../../core/plugin/route.js';
import { CompensationServiceToken, TOP_LIMIT_DEFAULT } from '../compensation-service.js';
import { CompensationReviewSchema, CompensationTopQuery } from '../schemas.js';

export const getCompensationReviewTop = defineRoute({
  operationId: 'getCompensationReviewTop',
  method: 'GET',
  path: '/v1/work/compensation/review/top',
  summary: 'The most anomalous members by compensation rate',
  description: `Operator only. The review of GET /v1/work/compensation/review narrowed to members compensated at least once (and with at least \`min_runs\` runs), highest anomaly first, at most \`limit\` (default ${TOP_LIMIT_DEFAULT}). The fleet figures are the whole fleet's.`,
  tags: ['work'],
  auth: { scope: 'admin' },
  request: { query: CompensationTopQuery },
  responses: { 200: { description: 'The top of the review.', schema: CompensationReviewSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { compensation: CompensationServiceToken },
  handler: async ({ query }, { compensation }) => compensation.top(query),
});
