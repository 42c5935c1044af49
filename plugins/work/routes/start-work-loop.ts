import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { tierName } from '../loop/run-starter.js';
import { WorkLoopBody, WorkLoopStartedSchema } from '../schemas.js';
import { RunStarterToken } from '../work-tokens.js';

export const startWorkLoop = defineRoute({
  operationId: 'startWorkLoop',
  method: 'POST',
  path: '/v1/work/loop',
  summary: 'Start a work loop of your own',
  description:
    'Runs a goal as the caller: the caller is the run’s actor and its tools act with the caller’s own scopes. Ceilings are the narrowest of the caller’s tier and the request. ' +
    'The thread id is the loop id; `watch` is its event stream. POST /v1/work/loop/preview answers what a start would get, without starting.',
  tags: ['work'],
  auth: { scope: 'records:write' },
  invalidInput: 'INVALID_BODY',
  request: { body: WorkLoopBody },
  responses: { 201: { description: 'Started.', schema: WorkLoopStartedSchema } },
  errors: ['INVALID_BODY', 'MODEL_UNKNOWN', 'TOOL_NOT_IN_REACH', 'WORK_DAILY_CAP_EXCEEDED', 'WORK_DAILY_COUNT_EXCEEDED', 'ADMISSION_CEILING', 'WORK_NO_PROVIDER'],
  inject: { starter: RunStarterToken },
  handler: async ({ body, caller }, { starter }) => {
    const plan = starter.planWorkLoop(caller, body);
    await starter.start(plan);
    return Reply.json(201, {
      object: 'work_loop',
      status: 'started',
      thread: plan.thread,
      tier: tierName(plan.tier),
      model: plan.model.id,
      tools: plan.tools,
      effective_config: { max_turns: plan.ceilings.max_turns, token_budget: plan.ceilings.token_budget, wall_clock_secs: plan.ceilings.wall_clock_secs, forbidden_tools: plan.forbidden },
      watch: `/v1/work/loop/${plan.thread}/stream`,
    });
  },
});
