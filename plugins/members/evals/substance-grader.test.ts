import { expect } from 'chai';
import { NOT_SUBSTANCE_SCORED, SubstanceTally, type SubstanceGrader } from './substance-grader.js';

describe('substance tally', () => {
  it('is not scored without a grader: null, never imputed', async () => {
    const tally = new SubstanceTally(null);
    await tally.add(1, 'Is the review right?', 'review', []);
    expect(tally.result()).to.deep.equal(NOT_SUBSTANCE_SCORED);
    expect(NOT_SUBSTANCE_SCORED).to.deep.equal({ substance_scored: false, substance_score: null, grader_model: null });
  });

  it("with a grader, is the weighted mean of its scores over cases with a rubric, clamped to [0, 1]", async () => {
    const scores = [0.5, 2, Number.NaN];
    const grader: SubstanceGrader = { model: 'judge-1', grade: async () => ({ score: scores.shift()!, reason: 'because' }) };
    const tally = new SubstanceTally(grader);
    await tally.add(1, 'rubric', 'goal', []);
    await tally.add(3, undefined, 'goal', []); // no rubric: not graded
    await tally.add(3, 'rubric', 'goal', []); // 2 → 1
    await tally.add(5, 'rubric', 'goal', []); // NaN → skipped
    expect(tally.result()).to.deep.equal({ substance_scored: true, substance_score: (0.5 * 1 + 1 * 3) / 4, grader_model: 'judge-1' });
  });
});
