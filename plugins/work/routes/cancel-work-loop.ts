import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RunThreadParams } from '../../members/index.js';
import { CancelBody, WorkLoopCancelSchema } from '../schemas.js';
import { RunControlToken } from '../work-tokens.js';

export const cancelWorkLoop = defineRoute({
  operationId: 'cancelWorkLoop',
  method: 'POST',
  path: '/v1/work/loop/{thread}/cancel',
  summary: 'Cancel a run',
  description:
    'Writes a core.work.loop_cancel.v1 (DO) on the run’s thread and aborts its provider stream at once; the run ends with outcome `cancelled` (state `stopped`) within moments. ' +
    'Allowed: the member, whoever started the run, the member’s owner, an operator. A run that has ended answers 200 with `cancel: null` and writes nothing.',
  tags: ['work'],
  auth: { scope: 'records:write' },
  invalidInput: 'INVALID_BODY',
  request: { params: RunThreadParams, body: CancelBody },
  responses: { 202: { description: 'Cancel written; the outcome follows.', schema: WorkLoopCancelSchema }, 200: { description: 'The run had already ended.', schema: WorkLoopCancelSchema } },
  errors: ['INVALID_BODY', 'NOT_FOUND', 'FORBIDDEN'],
  inject: { control: RunControlToken },
  handler: async ({ params, body, caller }, { control }) => {
    const { cancel, row } = await control.cancel(caller, params.thread, body?.reason ?? null);
    return Reply.json(cancel === null ? 200 : 202, { object: 'work_loop_cancel', thread: row.thread, cancel, state: row.state });
  },
});
