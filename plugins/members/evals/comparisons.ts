/**
 * `comparisons` of GET /v1/actors/{did}/evals (pure): each definition
 * against its predecessor, per axis. Only grades by the same suite compare
 * (two suites measure different things); a definition stands by its newest
 * grade under that suite, and its predecessor is the nearest earlier version
 * graded under it too (versions never graded are skipped). The substance
 * axis has a delta only when both sides were substance-scored.
 */
import { Type, type Static } from 'typebox';
import type { Grade } from './grade.js';

const Score = Type.Union([Type.Number(), Type.Null()]);

export const ComparisonSchema = Type.Object(
  {
    suite: Type.String(),
    definition: Type.String(),
    version: Type.Integer(),
    grade: Type.String({ description: 'The newest grade of this definition under the suite.' }),
    predecessor: Type.String({ description: 'The nearest earlier definition graded under the same suite.' }),
    predecessor_version: Type.Integer(),
    predecessor_grade: Type.String(),
    structure: Type.Object({ score: Score, predecessor_score: Score, delta: Score }),
    substance: Type.Object({ substance_scored: Type.Boolean({ description: 'Both sides substance-scored.' }), score: Score, predecessor_score: Score, delta: Score }),
  },
  { $id: 'EvalComparison' },
);
export type Comparison = Static<typeof ComparisonSchema>;

/** Comparisons from a member's grades (oldest first, as the log has them), newest version first, then by suite. */
export function comparisonsOf(grades: readonly Grade[]): Comparison[] {
  // suite → definition → its newest grade (a later grade replaces an earlier one).
  const bySuite = new Map<string, Map<string, Grade>>();
  for (const grade of grades) {
    let definitions = bySuite.get(grade.suite);
    if (!definitions) bySuite.set(grade.suite, (definitions = new Map()));
    definitions.set(grade.definition, grade);
  }
  const out: Comparison[] = [];
  for (const [suite, definitions] of bySuite) {
    const ordered = [...definitions.values()].sort((a, b) => a.definition_version - b.definition_version);
    for (let i = 1; i < ordered.length; i++) {
      const grade = ordered[i]!;
      const before = ordered[i - 1]!;
      const bothSubstance = grade.substance_scored && before.substance_scored;
      out.push({
        suite,
        definition: grade.definition,
        version: grade.definition_version,
        grade: grade.id,
        predecessor: before.definition,
        predecessor_version: before.definition_version,
        predecessor_grade: before.id,
        structure: { score: grade.structure_score, predecessor_score: before.structure_score, delta: difference(grade.structure_score, before.structure_score) },
        substance: {
          substance_scored: bothSubstance,
          score: grade.substance_score,
          predecessor_score: before.substance_score,
          delta: bothSubstance ? difference(grade.substance_score, before.substance_score) : null,
        },
      });
    }
  }
  return out.sort((a, b) => b.version - a.version || (a.suite < b.suite ? -1 : a.suite > b.suite ? 1 : 0));
}

const difference = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a - b);
