import { Type } from 'typebox';
import { LoomError } from '../../../../core/errors/loom-error.js';
import { defineRoute } from '../../../../core/plugin/route.js';
import { Reply } from '../../../../core/plugin/reply.js';
import { compileValidator } from '../../../../core/server/validators.js';
import { EvalServiceToken, type ScoreRequest } from '../eval-service.js';
import { ScoredGradeSchema } from '../grade.js';

const RecordId = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });

const ScoreRequestSchema = Type.Object(
  {
    suite: RecordId('The suite record id (a core.eval.suite.v1 record).'),
    actor: Type.String({ minLength: 1, maxLength: 512, description: 'The member whose runs are scored.' }),
    definition: RecordId('The definition record id the runs ran under (a version from the history).'),
  },
  { additionalProperties: false },
);

const validate = compileValidator('body', ScoreRequestSchema, 'INVALID_BODY');

export const scoreEvals = defineRoute({
  operationId: 'scoreEvals',
  method: 'POST',
  path: '/v1/evals/score',
  summary: "Score a member's runs under one definition with a suite",
  description:
    'Judges every ended run on record under the definition (the newest 5000; `capped` past that) with the suite\'s cases and writes ONE grade: a KNOW by the caller (the judge) on the member\'s evals thread, citing the opening record of every run it judged. structure_score is the weighted mean of passed structure checks, with per-check and per-case counts; substance_score is null and substance_scored false unless a grader model is configured. A caller who proposed the definition is refused (VERDICT_SELF_JUDGMENT). Every refusal writes nothing.',
  tags: ['members'],
  auth: { scope: 'records:write' },
  bodyValidation: 'handler',
  invalidInput: 'INVALID_BODY',
  request: { body: ScoreRequestSchema },
  responses: { 201: { description: 'The grade written, with the runs it judged.', schema: ScoredGradeSchema } },
  errors: ['INVALID_BODY', 'MISSING_FIELD', 'NO_CASES', 'NO_RUNS_UNDER_DEFINITION', 'VERDICT_SELF_JUDGMENT', 'NOT_FOUND', 'ACTOR_UNKNOWN', 'VERSION_UNKNOWN', 'FORBIDDEN'],
  inject: { evals: EvalServiceToken },
  handler: async ({ body, caller }, { evals }) => {
    const raw = body as unknown;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new LoomError('INVALID_BODY', 'the body must be a JSON object {suite, actor, definition}');
    const fields = raw as Record<string, unknown>;
    for (const name of ['suite', 'actor', 'definition']) {
      const value = fields[name];
      if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) throw new LoomError('MISSING_FIELD', `${name} is required`);
    }
    return Reply.json(201, await evals.score(caller, validate(raw) as ScoreRequest));
  },
});
