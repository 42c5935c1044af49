import { defineRoute } from '../../../../core/plugin/route.js';
import { DecisionServiceToken } from '../decision-token.js';
import { DecisionListQuery, DecisionPageSchema } from '../schemas.js';

export const listDecisions = defineRoute({
  operationId: 'listDecisions',
  method: 'GET',
  path: '/v1/decisions',
  summary: 'Pending decisions',
  description:
    'Decisions runs wait on (state waiting_on_you), oldest first: each with its question, options (id, label, one-line description, recommended), allow_other, multi, what it is about (a gated tool call with its input, an ask, a blueprint proposal with its plan hash) and its run. ' +
    'Only runs whose thread the caller may read whole. Filters: run, actor, thread. Paged with after=next_cursor.',
  tags: ['work'],
  auth: { scope: 'records:read' },
  request: { query: DecisionListQuery },
  responses: { 200: { description: 'A page of pending decisions.', schema: DecisionPageSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_CURSOR'],
  inject: { decisions: DecisionServiceToken },
  handler: async ({ query, caller }, { decisions }) => decisions.list(caller, query),
});
