import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RunThreadParams } from '../../members/index.js';
import { RunEventBody, RunEventSchema } from '../schemas.js';
import { RunControlToken } from '../work-tokens.js';
import { DecisionServiceToken } from '../decisions/decision-token.js';
import { DECIDE_ERRORS } from '../decisions/routes/decide-decision.js';

export const postRunEvent = defineRoute({
  operationId: 'postRunEvent',
  method: 'POST',
  path: '/v1/runs/{thread}/events',
  summary: 'Steer or stop a run',
  description:
    '`{type: "message", text}` writes a core.work.message.v1 on the run’s thread; the member’s next model call reads it (a run that has ended: 409 RUN_ENDED). ' +
    '`{type: "stop", reason?}` cancels the run as POST /v1/work/loop/{thread}/cancel does (and withdraws its open decision). Allowed: the member, whoever started the run, the member’s owner, an operator. ' +
    '`{type: "decision", decision, reason?, provided_value?, decisions?}` answers the run’s open decision by the rules and code path of POST /v1/decisions/{id}/decide (201 with `decision`, the outcome; 409 DECISION_CLOSED when none is open).',
  tags: ['work'],
  auth: { scope: 'records:write' },
  invalidInput: 'INVALID_BODY',
  request: { params: RunThreadParams, body: RunEventBody },
  responses: { 201: { description: 'Written.', schema: RunEventSchema }, 200: { description: 'A stop of a run that had ended: nothing written.', schema: RunEventSchema } },
  errors: [...new Set(['INVALID_BODY', 'NOT_FOUND', 'FORBIDDEN', 'RUN_ENDED', ...DECIDE_ERRORS] as const)],
  inject: { control: RunControlToken, decisions: DecisionServiceToken },
  handler: async ({ params, body, caller }, { control, decisions }) => {
    if (body.type === 'decision') {
      const { type: _type, ...answer } = body;
      const outcome = await decisions.decideOpen(caller, params.thread, answer);
      return Reply.json(201, { object: 'run_event', type: 'decision', thread: params.thread, record: outcome.answer, state: 'running', decision: outcome });
    }
    if (body.type === 'message') {
      const { record, row } = await control.message(caller, params.thread, body.text);
      return Reply.json(201, { object: 'run_event', type: 'message', thread: row.thread, record, state: row.state });
    }
    const { cancel, row } = await control.cancel(caller, params.thread, body.reason ?? null);
    return Reply.json(cancel === null ? 200 : 201, { object: 'run_event', type: 'stop', thread: row.thread, record: cancel, state: row.state });
  },
});
