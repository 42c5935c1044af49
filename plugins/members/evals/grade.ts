/**
 * A grade (spec §2.6): one scoring of a member's runs under one definition
 * by one suite, written by POST /v1/evals/score as a KNOW by the judge
 * (record.actor = the judge's DID, also `body.judge`) on the member's evals
 * thread, its `parents` the opening records of the runs it judged.
 *
 *   {kind: 'core.eval.grade.v1', actor (the member graded), definition,
 *    definition_version, suite, judge, structure_score, substance_score,
 *    substance_scored, grader_model, runs_scored, runs_open, capped,
 *    scan_ceiling, scanned_through, checks, cases, runs: [{run, thread,
 *    through, records, failed}]}
 *
 * `runs` lists every judged run with the last record judged (`through`), so
 * the judgment is reproducible even though a record cites at most 1000
 * parents: past 1000 runs, `parents` holds the newest 1000.
 * A grade carries no `verdict`: it moves no trust.
 */
import { Type, type Static } from 'typebox';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { nobleSha256Hex } from '../../../core/records/sha256.js';
import type { CaseTally, CheckCount, CheckName } from './structure-score.js';
import { CHECKS } from './structure-score.js';

export const KIND_GRADE = 'core.eval.grade.v1';

/** Spec §8: the evaluation scan stops at 5000 runs (and GET …/evals at 5000 grades), then `capped: true`. */
export const SCAN_CEILING = 5000;

/** The thread holding a member's grades: derived from its DID, so anyone can name it (in a read grain, say). */
export function evalsThreadId(memberDid: string): string {
  return 'th_' + nobleSha256Hex(canonicalJson(['evals', memberDid]));
}

export interface JudgedRun {
  /** The run's opening `core.work.run.v1` record id. */
  run: string;
  thread: string;
  /** The last record of the run judged. */
  through: string;
  /** Records read, from the opening one to `through`. */
  records: number;
  /** `<case id>/<check>` of every check this run failed. */
  failed: string[];
}

export interface GradeBody {
  kind: typeof KIND_GRADE;
  schema_version: '1.0.0';
  /** The member graded (as in the score request; the record's actor is the judge). */
  actor: string;
  definition: string;
  definition_version: number;
  suite: string;
  judge: string;
  structure_score: number | null;
  substance_score: number | null;
  substance_scored: boolean;
  grader_model: string | null;
  runs_scored: number;
  /** Runs under the definition without an outcome yet: not judged. */
  runs_open: number;
  /** More runs were under the definition than the scan looks at. */
  capped: boolean;
  scan_ceiling: number;
  /** The log sequence the scoring read up to. */
  scanned_through: number;
  checks: Record<CheckName, CheckCount>;
  cases: CaseTally[];
  runs: JudgedRun[];
}

const Count = Type.Object({ passed: Type.Integer(), total: Type.Integer() });
const Score = Type.Union([Type.Number(), Type.Null()]);

const gradeProperties = {
  object: Type.Literal('grade'),
  id: Type.String({ description: 'The grade record id.' }),
  thread: Type.String({ description: "The member's evals thread." }),
  at: Type.String({ format: 'date-time' }),
  judge: Type.String({ description: "The judge's DID (the grade record's actor)." }),
  actor: Type.String({ description: 'The member graded.' }),
  definition: Type.String(),
  definition_version: Type.Integer(),
  suite: Type.String(),
  structure_score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'Weighted mean of passed structure checks.' }),
  substance_score: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'Null unless substance_scored: never imputed, never blended.' }),
  substance_scored: Type.Boolean(),
  grader_model: Type.Union([Type.String(), Type.Null()]),
  runs_scored: Type.Integer(),
  runs_open: Type.Integer(),
  capped: Type.Boolean(),
  scan_ceiling: Type.Integer(),
  checks: Type.Object(Object.fromEntries(CHECKS.map((check) => [check, Count])) as Record<CheckName, typeof Count>, { description: 'Per check: passed and applicable (case, run) pairs.' }),
  cases: Type.Array(Type.Object({ id: Type.String(), weight: Type.Number(), runs: Type.Integer(), passed: Type.Integer(), total: Type.Integer(), score: Score })),
};

export const GradeSchema = Type.Object(gradeProperties, { $id: 'EvalGrade' });
export type Grade = Static<typeof GradeSchema>;

export const JudgedRunSchema = Type.Object(
  { run: Type.String(), thread: Type.String(), through: Type.String(), records: Type.Integer(), failed: Type.Array(Type.String()) },
  { $id: 'EvalJudgedRun' },
);

export const ScoredGradeSchema = Type.Object({ ...gradeProperties, runs: Type.Array(JudgedRunSchema, { description: 'Every run judged (the grade cites their opening records).' }) }, { $id: 'EvalScoredGrade' });

/** The wire grade of a grade record. */
export function gradeOf(id: string, thread: string, at: string, body: GradeBody): Grade {
  return {
    object: 'grade',
    id,
    thread,
    at,
    judge: body.judge,
    actor: body.actor,
    definition: body.definition,
    definition_version: body.definition_version,
    suite: body.suite,
    structure_score: body.structure_score,
    substance_score: body.substance_score,
    substance_scored: body.substance_scored,
    grader_model: body.grader_model,
    runs_scored: body.runs_scored,
    runs_open: body.runs_open,
    capped: body.capped,
    scan_ceiling: body.scan_ceiling,
    checks: body.checks,
    cases: body.cases,
  };
}
