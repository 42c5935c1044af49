/**
 * An eval suite (issue 32, "Evals"): a `core.eval.suite.v1` record of cases,
 * written with POST /v1/records by anyone who can write, on any thread they
 * choose (a team's suites thread, the member's own work thread). Its record
 * id names it; a new version is a new record (cite the old one in
 * `parents`), so a grade always names the exact cases it applied. The
 * members plugin's gate (eval-gates.ts) admits only well-formed suites; a
 * suite with no cases is storable and refused at scoring (400 NO_CASES).
 *
 *   {kind: 'core.eval.suite.v1', name, description?, cases: [{
 *     id,                       unique within the suite
 *     weight?,                  > 0, default 1: how much its checks count
 *     select?: {tag?},          which runs it judges: every ended run under
 *                               the definition, or those whose run record's
 *                               `tags` hold `tag`
 *     expected_tools?,          tool names, matched per `trajectory`
 *     trajectory?,              strict | unordered | subset | superset (default superset)
 *     forbidden_tools?,         tools the run must not call
 *     required_kinds?,          kinds the member must write in the run
 *                               (default: the definition's declares_kinds)
 *     ceilings?: {max_turns?, max_spend_usd?, max_tool_calls?},
 *     rubric?                   words for a substance grader, when one is configured
 *   }]}
 */
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { validationMessage } from '../../../core/server/validation-message.js';

export const KIND_SUITE = 'core.eval.suite.v1';

export const TRAJECTORY_MODES = ['strict', 'unordered', 'subset', 'superset'] as const;
export type TrajectoryMode = (typeof TRAJECTORY_MODES)[number];

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Kind = Type.String({ minLength: 1, maxLength: 200 });

export const EvalCaseSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    weight: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1000 })),
    select: Type.Optional(Type.Object({ tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false })),
    expected_tools: Type.Optional(Type.Array(Name, { maxItems: 200 })),
    trajectory: Type.Optional(Type.Union([Type.Literal('strict'), Type.Literal('unordered'), Type.Literal('subset'), Type.Literal('superset')])),
    forbidden_tools: Type.Optional(Type.Array(Name, { maxItems: 200 })),
    required_kinds: Type.Optional(Type.Array(Kind, { maxItems: 100 })),
    ceilings: Type.Optional(
      Type.Object(
        {
          max_turns: Type.Optional(Type.Integer({ minimum: 0 })),
          max_spend_usd: Type.Optional(Type.Number({ minimum: 0 })),
          max_tool_calls: Type.Optional(Type.Integer({ minimum: 0 })),
        },
        { additionalProperties: false },
      ),
    ),
    rubric: Type.Optional(Type.String({ minLength: 1, maxLength: 20_000 })),
  },
  { additionalProperties: false },
);
export type EvalCase = Static<typeof EvalCaseSchema>;

/** The suite body; extra top-level fields (namespace, notes) are the writer's own. */
export const SuiteBodySchema = Type.Object({
  kind: Type.Literal(KIND_SUITE),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  cases: Type.Optional(Type.Array(EvalCaseSchema, { maxItems: 1000 })),
});
export type SuiteBody = Static<typeof SuiteBodySchema>;

const check = Compile(SuiteBodySchema);

/** Why a suite body is not well-formed, or null. Case ids must be unique. */
export function suiteProblem(body: unknown): string | null {
  if (!check.Check(body)) return validationMessage('body', check.Errors(body) as never, SuiteBodySchema, body);
  const seen = new Set<string>();
  for (const evalCase of body.cases ?? []) {
    if (seen.has(evalCase.id)) return `body.cases: case id ${JSON.stringify(evalCase.id)} appears twice`;
    seen.add(evalCase.id);
  }
  return null;
}

/** The body as a suite, or null when it is not a well-formed one. */
export function parseSuite(body: unknown): SuiteBody | null {
  return suiteProblem(body) === null ? (body as SuiteBody) : null;
}
