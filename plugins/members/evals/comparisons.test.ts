import { expect } from 'chai';
import { comparisonsOf } from './comparisons.js';
import type { Grade } from './grade.js';
import { CHECKS } from './structure-score.js';

let n = 0;
function grade(suite: string, version: number, structure: number | null, substance: number | null = null): Grade {
  n++;
  return {
    object: 'grade',
    id: String(n).padStart(64, '0'),
    thread: 'th_' + 'e'.repeat(64),
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    judge: 'did:sync:user:judge',
    actor: 'did:sync:agent:a-0000000000000000',
    definition: String(version).repeat(64).slice(0, 64),
    definition_version: version,
    suite,
    structure_score: structure,
    substance_score: substance,
    substance_scored: substance !== null,
    grader_model: substance !== null ? 'judge-model' : null,
    runs_scored: 1,
    runs_open: 0,
    capped: false,
    scan_ceiling: 5000,
    checks: Object.fromEntries(CHECKS.map((c) => [c, { passed: 0, total: 0 }])) as Grade['checks'],
    cases: [],
  };
}

describe('eval comparisons', () => {
  it('compares each graded definition with the nearest earlier one under the same suite, by its newest grade', () => {
    const grades = [grade('s1', 1, 0.5), grade('s1', 1, 0.6), grade('s2', 1, 0.9), grade('s1', 3, 0.75), grade('s2', 2, 0.8)];
    const comparisons = comparisonsOf(grades);
    expect(comparisons.map((c) => [c.suite, c.version, c.predecessor_version])).to.deep.equal([
      ['s1', 3, 1],
      ['s2', 2, 1],
    ]);
    expect(comparisons[0]!.structure).to.deep.equal({ score: 0.75, predecessor_score: 0.6, delta: 0.75 - 0.6 });
    expect(comparisons[0]!.predecessor_grade).to.equal(grades[1]!.id);
    expect(comparisons[0]!.substance).to.deep.equal({ substance_scored: false, score: null, predecessor_score: null, delta: null });
  });

  it('gives a substance delta only when both sides were substance-scored', () => {
    const [both] = comparisonsOf([grade('s', 1, 0.5, 0.4), grade('s', 2, 0.5, 0.7)]);
    expect(both!.substance).to.deep.equal({ substance_scored: true, score: 0.7, predecessor_score: 0.4, delta: 0.7 - 0.4 });
    const [one] = comparisonsOf([grade('s', 1, 0.5), grade('s', 2, 0.5, 0.7)]);
    expect(one!.substance).to.deep.equal({ substance_scored: false, score: 0.7, predecessor_score: null, delta: null });
    expect(comparisonsOf([grade('s', 1, 0.5)])).to.deep.equal([]);
  });
});
