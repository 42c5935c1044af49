/**
 * The 90-day half-life (spec §1): a verdict counts with weight
 * 2^(−age / 90 days), its age running from its receipt time to the moment
 * the score is read.
 *
 * So that adding a verdict is O(1) and reading applies decay once, the fold
 * keeps per row Σ 2^((t_i − ref) / H) against a fixed reference time `ref`
 * (the row's "grown" sums); at read time one factor 2^((ref − now) / H)
 * turns them into Σ 2^(−(now − t_i) / H). Growth doubles every 90 days after
 * `ref`, so the fold moves `ref` forward (rebases, O(rows)) before an
 * exponent could approach the double range: about once every 126 years.
 */

export const HALF_LIFE_DAYS = 90;
export const HALF_LIFE_MS = HALF_LIFE_DAYS * 86_400_000;

/** Rebase once a verdict would grow by more than 2^512 (sums stay below 2^565 for 2^53 verdicts). */
export const REBASE_AFTER_HALF_LIVES = 512;

/** The weight of evidence `ageMs` old: 1 when fresh, 1/2 after 90 days. */
export function decayWeight(ageMs: number): number {
  return 2 ** (-ageMs / HALF_LIFE_MS);
}

/** What one verdict received at `at` adds to a row's grown sums against `ref`. */
export function growth(at: number, ref: number): number {
  return 2 ** ((at - ref) / HALF_LIFE_MS);
}

/** Multiplies grown sums against `ref` into weights as of `now`. */
export function readFactor(ref: number, now: number): number {
  return 2 ** ((ref - now) / HALF_LIFE_MS);
}

/** True when a verdict received at `at` would grow too much against `ref`: rebase first. */
export function needsRebase(at: number, ref: number): boolean {
  return (at - ref) / HALF_LIFE_MS > REBASE_AFTER_HALF_LIVES;
}
