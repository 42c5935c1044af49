/**
 * Where a substance grader plugs in (spec §2.6: `substance_score` only when a
 * grader model is configured). A grader is a model-graded rubric: it reads a
 * case's `rubric` and one run's records and answers a score in [0, 1]. The
 * provider adapters that can call a model arrive with the work loop; until a
 * plugin binds SubstanceGraderToken, no grader exists, and every grade says
 * `substance_scored: false`, `substance_score: null`: never imputed from the
 * structure score, never blended into it. The capabilities manifest says
 * which: `conventions.evals.substance_grading` is `absent` or `model`, and
 * the flag `members.evals.substance` is present only when one is bound.
 */
import { token } from '../../../core/di/token.js';
import type { LoomRecord } from '../../../core/records/record.js';

export interface SubstanceInput {
  /** The case's rubric. */
  readonly rubric: string;
  readonly goal: string;
  /** The run's records, oldest first, as scoring read them. */
  readonly records: readonly LoomRecord[];
}

export interface SubstanceGrader {
  /** The grading model's id, written on every grade it scores. */
  readonly model: string;
  grade(input: SubstanceInput): Promise<{ score: number; reason: string }>;
}

export const SubstanceGraderToken = token<SubstanceGrader>('members.SubstanceGrader');

export interface SubstanceResult {
  substance_scored: boolean;
  substance_score: number | null;
  grader_model: string | null;
}

/** What a grade says when no grader is configured (or no case has a rubric). */
export const NOT_SUBSTANCE_SCORED: SubstanceResult = Object.freeze({ substance_scored: false, substance_score: null, grader_model: null });

/** The weighted mean of a grader's scores over (case with a rubric, run) pairs. */
export class SubstanceTally {
  private weighted = 0;
  private weights = 0;

  constructor(private readonly grader: SubstanceGrader | null) {}

  get active(): boolean {
    return this.grader !== null;
  }

  async add(weight: number, rubric: string | undefined, goal: string, records: readonly LoomRecord[]): Promise<void> {
    if (!this.grader || rubric === undefined) return;
    const { score } = await this.grader.grade({ rubric, goal, records });
    // A grader answering outside [0, 1] (or not a number) is clamped or skipped, never trusted as is.
    if (typeof score !== 'number' || !Number.isFinite(score)) return;
    this.weighted += weight * Math.min(1, Math.max(0, score));
    this.weights += weight;
  }

  result(): SubstanceResult {
    if (!this.grader || this.weights === 0) return NOT_SUBSTANCE_SCORED;
    return { substance_scored: true, substance_score: this.weighted / this.weights, grader_model: this.grader.model };
  }
}
