/**
 * The Wilson bound against the conformance vectors copied into
 * plugins/trust/vectors (R `binom` via statsmodels, and Newcombe 1998): with
 * the exact quantile to half a unit in the last digit each source wrote, and
 * with z = 1.96 at the suite README's tolerances.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { wilsonInterval, wilsonLowerBound, Z_95 } from './wilson.js';

interface Vector {
  successes: number;
  trials: number;
  lower: number;
  upper: number;
  lower_text: string;
  upper_text: string;
  source: string;
}

/** The repository root: the nearest directory above this file holding package.json (tests run from dist/). */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

const VECTORS = JSON.parse(readFileSync(join(repoRoot(), 'plugins/trust/vectors/wilson95-reference.json'), 'utf8')) as Vector[];

/** Half a unit in the last written digit ("0.8332961" → 5e-8; "5.908590e-03" → 5e-10; "0" → exact). */
function halfUlpOf(text: string): number {
  const [mantissa, exponent] = text.toLowerCase().split('e');
  const decimals = mantissa!.includes('.') ? mantissa!.split('.')[1]!.length : 0;
  return 0.5 * 10 ** -(decimals - Number(exponent ?? 0)) + 1e-15;
}

describe('trust: Wilson score interval (95%)', () => {
  it('holds all 12 reference rows', () => {
    expect(VECTORS).to.have.length(12);
  });

  for (const v of VECTORS) {
    it(`${v.successes}/${v.trials} matches ${v.source.startsWith('statsmodels') ? 'R binom' : 'Newcombe 1998'} with the exact quantile`, () => {
      const { lower, upper } = wilsonInterval(v.successes, v.trials);
      expect(Math.abs(lower - v.lower), `lower ${lower} vs ${v.lower_text}`).to.be.at.most(halfUlpOf(v.lower_text));
      expect(Math.abs(upper - v.upper), `upper ${upper} vs ${v.upper_text}`).to.be.at.most(halfUlpOf(v.upper_text));
      expect(wilsonLowerBound(v.successes, v.trials)).to.equal(lower);
    });

    it(`${v.successes}/${v.trials} is within the README's tolerance with z = 1.96`, () => {
      const tolerance = v.source.startsWith('statsmodels') ? 1e-5 : 6e-5;
      const { lower, upper } = wilsonInterval(v.successes, v.trials, 1.96);
      expect(Math.abs(lower - v.lower)).to.be.at.most(tolerance);
      expect(Math.abs(upper - v.upper)).to.be.at.most(tolerance);
    });
  }

  it('uses qnorm(0.975), not 1.96 (the two differ on 18/20 by more than the R row’s precision)', () => {
    expect(Z_95).to.equal(1.959963984540054);
    expect(Math.abs(wilsonLowerBound(18, 20) - wilsonLowerBound(18, 20, 1.96))).to.be.greaterThan(1e-6);
  });

  it('scores no evidence as 0 (interval [0, 1]) and never leaves [0, 1]', () => {
    expect(wilsonLowerBound(0, 0)).to.equal(0);
    expect(wilsonInterval(0, 0)).to.deep.equal({ lower: 0, upper: 1 });
    expect(wilsonLowerBound(0, 30)).to.equal(0);
    expect(wilsonInterval(30, 30).upper).to.equal(1);
    for (const [s, n] of [[1e-300, 1e-300], [5, 5], [0, 1e-320], [3, 2], [-1, 4]] as const) {
      const { lower, upper } = wilsonInterval(s, n);
      expect(lower).to.be.within(0, 1);
      expect(upper).to.be.within(0, 1);
      expect(Number.isNaN(lower) || Number.isNaN(upper)).to.equal(false);
    }
  });

  it('takes fractional (decayed) counts and agrees with the textbook form there', () => {
    const s = 3.25;
    const n = 4.5;
    const p = s / n;
    const z = Z_95;
    const textbook = (p + (z * z) / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
    expect(wilsonLowerBound(s, n)).to.be.closeTo(textbook, 1e-12);
    // Halving every count (a uniform half-life) keeps the rate but widens the interval.
    expect(wilsonLowerBound(s / 2, n / 2)).to.be.lessThan(wilsonLowerBound(s, n));
  });
});
