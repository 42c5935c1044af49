import { defineRoute } from '../../../core/plugin/route.js';
import { RunThreadParams } from '../../members/index.js';
import { WorkLoopStatusSchema } from '../schemas.js';
import { RunControlToken, RunEngineToken } from '../work-tokens.js';

export const getWorkLoop = defineRoute({
  operationId: 'getWorkLoop',
  method: 'GET',
  path: '/v1/work/loop/{thread}',
  summary: 'A work loop’s status',
  description: 'The run’s state and outcome, whether this server drives it now, its stream URL and its run row. A run the caller may not read whole answers 404 NOT_FOUND, as a missing one.',
  tags: ['work'],
  auth: { scope: 'records:read' },
  request: { params: RunThreadParams },
  responses: { 200: { description: 'The loop status.', schema: WorkLoopStatusSchema } },
  errors: ['NOT_FOUND'],
  inject: { control: RunControlToken, engine: RunEngineToken },
  handler: async ({ params, caller }, { control, engine }) => {
    const run = control.row(caller, params.thread);
    return { object: 'work_loop_status' as const, thread: run.thread, state: run.state, outcome: run.outcome, driven_here: engine.isDriving(run.thread), watch: `/v1/work/loop/${run.thread}/stream`, run };
  },
});
