/**
 * The Wilson score interval at 95% confidence (spec §1: trust is its lower
 * bound). z is the exact normal quantile qnorm(0.975), as R's `binom` uses:
 * the conformance vectors (plugins/trust/vectors) were computed with it, and
 * 1.96 would differ from them by up to 5e-6.
 *
 * Counts may be fractional: trust feeds decayed (weighted) counts in. The
 * form below, (2s + z² ∓ z·√(z² + 4s(n−s)/n)) / (2(n + z²)), is the textbook
 * one multiplied through by n, so it stays finite as n approaches 0 (the
 * textbook p̂ + z²/2n form divides by n and cancels two huge terms).
 */

/** qnorm(0.975): the two-sided 95% normal quantile. */
export const Z_95 = 1.959963984540054;

export interface WilsonInterval {
  readonly lower: number;
  readonly upper: number;
}

/**
 * The interval for `successes` out of `total` (both ≥ 0, possibly
 * fractional). No evidence (total ≤ 0) is [0, 1]: nothing is known.
 */
export function wilsonInterval(successes: number, total: number, z: number = Z_95): WilsonInterval {
  if (!(total > 0) || !Number.isFinite(total)) return { lower: 0, upper: 1 };
  const s = Math.min(Math.max(successes, 0), total);
  const z2 = z * z;
  const spread = z * Math.sqrt(z2 + (4 * s * (total - s)) / total);
  const centre = 2 * s + z2;
  const denominator = 2 * (total + z2);
  // Clamped: at s = 0 (or s = n) rounding can leave ±1e-17 outside [0, 1].
  return { lower: clamp01((centre - spread) / denominator), upper: clamp01((centre + spread) / denominator) };
}

/** The trust score: the interval's lower bound; 0 when there is no evidence. */
export function wilsonLowerBound(successes: number, total: number, z: number = Z_95): number {
  return total > 0 ? wilsonInterval(successes, total, z).lower : 0;
}

function clamp01(value: number): number {
  return value < 0 ? 0 : value > 1 ? 1 : value;
}
