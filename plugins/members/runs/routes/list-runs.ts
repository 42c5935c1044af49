import { defineRoute } from '../../../../core/plugin/route.js';
import { RUN_SCAN_CEILING, RunServiceToken } from '../run-service.js';
import { RunListQuery, RunPageSchema } from '../schemas.js';

export const listRuns = defineRoute({
  operationId: 'listRuns',
  method: 'GET',
  path: '/v1/runs',
  summary: 'Runs, newest first',
  description: `Run rows newest first, filtered by state, member and start time. A bounded scan: at most ${RUN_SCAN_CEILING} runs are read per answer; \`capped\` says the scan stopped there before filling the page. Only runs whose thread the caller may read.`,
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { query: RunListQuery },
  responses: { 200: { description: 'A page of run rows.', schema: RunPageSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_QUERY'],
  inject: { runs: RunServiceToken },
  handler: async ({ query, caller }, { runs }) => runs.list(caller, query),
});
