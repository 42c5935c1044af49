import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ActorDidParams, RunRowSchema } from '../../members/index.js';
import { MemberRunBody } from '../schemas.js';
import { RunControlToken, RunStarterToken } from '../work-tokens.js';

export const startMemberRun = defineRoute({
  operationId: 'startMemberRun',
  method: 'POST',
  path: '/v1/actors/{did}/runs',
  summary: 'Run a goal as a member',
  description:
    'Starts a run as the member: its definition (or a one-off `definition` trial, checked like define, not installed) on its model with its tools, under the narrowest of its tier’s, its own and this request’s ceilings. ' +
    'Allowed: the member itself, whoever defined it, an operator. The run is a thread (the answer’s `thread`); watch it at GET /v1/work/loop/{thread}/stream. Every refusal writes nothing.',
  tags: ['work'],
  auth: { scope: 'records:write' },
  invalidInput: 'INVALID_BODY',
  request: { params: ActorDidParams, body: MemberRunBody },
  responses: { 201: { description: 'The run row of the started run.', schema: RunRowSchema } },
  errors: [
    'INVALID_BODY',
    'RUN_ACTOR_NOT_COVERED',
    'ACTOR_UNKNOWN',
    'INVALID_DEFINITION',
    'WORK_PROMPT_UNRESOLVED',
    'REPO_UNKNOWN',
    'MODEL_UNKNOWN',
    'TOOL_NOT_DECLARED',
    'TOOL_NOT_IN_REACH',
    'READS_NOT_COVERED',
    'DAILY_CAP_TOO_WIDE',
    'WRITE_KIND_NOT_ADMITTED',
    'GRANT_REFUSED',
    'WORK_DAILY_CAP_EXCEEDED',
    'WORK_DAILY_COUNT_EXCEEDED',
    'ADMISSION_CEILING',
    'WORK_NO_PROVIDER',
  ],
  inject: { starter: RunStarterToken, control: RunControlToken },
  handler: async ({ params, body, caller }, { starter, control }) => {
    const plan = await starter.planMemberRun(caller, params.did, body);
    await starter.start(plan);
    return Reply.json(201, control.systemRow(plan.thread));
  },
});
