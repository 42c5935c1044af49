import { defineRoute } from '../../../../core/plugin/route.js';
import { Reply } from '../../../../core/plugin/reply.js';
import { DecisionServiceToken } from '../decision-token.js';
import { DecideBody, DecisionIdParams, DecisionOutcomeSchema } from '../schemas.js';

/** Codes an answer may be refused with (the run-events door's `{type: decision}` shares them). */
export const DECIDE_ERRORS = [
  'INVALID_BODY',
  'NOT_FOUND',
  'FORBIDDEN',
  'DECISION_CLOSED',
  'BAD_OPTION',
  'OTHER_NOT_ALLOWED',
  'MULTI_NOT_ALLOWED',
  'PROVIDED_VALUE_REQUIRED',
  // An approved blueprint proposal is installed as the approver, refused as the install door refuses.
  'PLAN_HASH_MISMATCH',
  'BLUEPRINT_UNSIGNED',
  'MISSING_FIELD',
  'WORK_PROMPT_UNRESOLVED',
  'GRANT_REFUSED',
  'MODEL_UNKNOWN',
  'TOOL_NOT_DECLARED',
  'TOOL_NOT_IN_REACH',
  'WRITE_KIND_NOT_ADMITTED',
  'READS_NOT_COVERED',
  'DAILY_CAP_TOO_WIDE',
] as const;

export const decideDecision = defineRoute({
  operationId: 'decideDecision',
  method: 'POST',
  path: '/v1/decisions/{id}/decide',
  summary: 'Answer a decision',
  description:
    '`decision` is an option id, approve/reject for an older ask, or other with provided_value where allow_other; `decisions` names several where multi. A disallowed choice is refused by name (BAD_OPTION, OTHER_NOT_ALLOWED, MULTI_NOT_ALLOWED, PROVIDED_VALUE_REQUIRED) and writes nothing. ' +
    'The answer is a core.work.decision_answer.v1 DO that fulfils the request; the run resumes on the chosen labels and descriptions (or your sentence), never on an id. A rejected tool call gets a result carrying your reason verbatim; only that call is affected. ' +
    'Approving a blueprint proposal installs it as you, within your grant, exactly as POST /v1/blueprints/materialize would (409 PLAN_HASH_MISMATCH when the plan changed since it was proposed): `{kind: blueprint_proposal, installed}`. ' +
    'Allowed: whoever started the run, the member’s owner, an operator; never the member. A decision no longer pending is 409 DECISION_CLOSED.',
  tags: ['work'],
  auth: { scope: 'records:write' },
  invalidInput: 'INVALID_BODY',
  request: { params: DecisionIdParams, body: DecideBody },
  responses: { 201: { description: 'Answered: the run resumes.', schema: DecisionOutcomeSchema } },
  errors: [...DECIDE_ERRORS],
  inject: { decisions: DecisionServiceToken },
  handler: async ({ params, body, caller }, { decisions }) => Reply.json(201, await decisions.decide(caller, params.id, body)),
});
