import { defineRoute } from '../../../../core/plugin/route.js';
import { RunRowSchema } from '../run-row.js';
import { RunServiceToken } from '../run-service.js';
import { RunThreadParams } from '../schemas.js';

export const getRun = defineRoute({
  operationId: 'getRun',
  method: 'GET',
  path: '/v1/runs/{thread}',
  summary: 'One run row',
  description:
    "The run row (spec §2.6) of the run on this thread, a fold over the member's own run records (core.work.run.v1, turn, tool_call, tool_result, loop_outcome). A run whose thread the caller may not read whole answers as a missing one.",
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: RunThreadParams },
  responses: { 200: { description: 'The run row.', schema: RunRowSchema } },
  errors: ['NOT_FOUND'],
  inject: { runs: RunServiceToken },
  handler: async ({ params, caller }, { runs }) => runs.row(caller, params.thread),
});
