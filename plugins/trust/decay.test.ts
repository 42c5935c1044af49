/** The half-life itself: weights by age, and the grown-sum arithmetic the rows use. */
import { expect } from 'chai';
import { decayWeight, growth, HALF_LIFE_MS, needsRebase, readFactor, REBASE_AFTER_HALF_LIVES } from './decay.js';

const DAY = 86_400_000;

describe('trust: 90-day half-life', () => {
  it('weighs fresh evidence 1, 90 days half, 180 days a quarter, a year about 6%', () => {
    expect(decayWeight(0)).to.equal(1);
    expect(decayWeight(90 * DAY)).to.equal(0.5);
    expect(decayWeight(180 * DAY)).to.equal(0.25);
    expect(decayWeight(365 * DAY)).to.be.closeTo(0.0601, 1e-4);
  });

  it('grown sums read back as the sum of the weights, whatever the reference time', () => {
    const times = [0, 10 * DAY, 95 * DAY, 200 * DAY];
    const now = 250 * DAY;
    const direct = times.reduce((sum, t) => sum + decayWeight(now - t), 0);
    for (const ref of [0, 77 * DAY, 300 * DAY]) {
      const grown = times.reduce((sum, t) => sum + growth(t, ref), 0);
      expect(grown * readFactor(ref, now)).to.be.closeTo(direct, 1e-12);
    }
  });

  it('asks for a rebase before growth could overflow', () => {
    const limit = REBASE_AFTER_HALF_LIVES * HALF_LIFE_MS;
    expect(needsRebase(limit, 0)).to.equal(false);
    expect(needsRebase(limit + DAY, 0)).to.equal(true);
    expect(Number.isFinite(growth(limit, 0) * 2 ** 53)).to.equal(true);
  });
});
