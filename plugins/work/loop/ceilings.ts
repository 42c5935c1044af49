/**
 * A run's ceilings: the narrowest of its tier's, its member's and its
 * request's (spec §4.15: ceilings supplied only narrow). Null is no ceiling
 * (an operator's loop). The tier's numbers are Loom's (plugins/members/tiers.ts).
 */
import type { TierCaps } from '../../members/index.js';

export interface RunCeilings {
  readonly max_turns: number | null;
  readonly wall_clock_secs: number | null;
  /** Input and output tokens of every call of the run together. */
  readonly token_budget: number | null;
  readonly budget_usd: number | null;
  readonly daily_cost_cap_usd: number | null;
  readonly daily_loop_cap: number | null;
}

export type CeilingsInput = { readonly [K in keyof RunCeilings]?: number | null };

/** The smallest of the given numbers (null and undefined are no ceiling). */
export function narrowest(...values: readonly (number | null | undefined)[]): number | null {
  let least: number | null = null;
  for (const value of values) if (typeof value === 'number' && (least === null || value < least)) least = value;
  return least;
}

export function effectiveCeilings(tier: TierCaps, ...layers: readonly CeilingsInput[]): RunCeilings {
  const pick = (key: keyof RunCeilings, tierValue: number | null) => narrowest(tierValue, ...layers.map((layer) => layer[key]));
  return {
    max_turns: pick('max_turns', tier.max_turns),
    wall_clock_secs: pick('wall_clock_secs', tier.wall_clock_secs),
    token_budget: pick('token_budget', tier.token_budget),
    // A member with no budget of its own runs on its tier's default budget.
    budget_usd: pick('budget_usd', layers.some((layer) => typeof layer.budget_usd === 'number') ? null : tier.default_budget_usd),
    daily_cost_cap_usd: pick('daily_cost_cap_usd', tier.daily_cost_cap_usd),
    daily_loop_cap: pick('daily_loop_cap', tier.daily_loop_cap),
  };
}

export function ceilingsOf(opening: Readonly<Record<string, unknown>>): RunCeilings {
  const raw = (opening['ceilings'] ?? {}) as Record<string, unknown>;
  const num = (key: string): number | null => (typeof raw[key] === 'number' ? (raw[key] as number) : null);
  return {
    max_turns: typeof opening['max_turns'] === 'number' ? (opening['max_turns'] as number) : num('max_turns'),
    wall_clock_secs: num('wall_clock_secs'),
    token_budget: num('token_budget'),
    budget_usd: typeof opening['ceiling_usd'] === 'number' ? (opening['ceiling_usd'] as number) : num('budget_usd'),
    daily_cost_cap_usd: num('daily_cost_cap_usd'),
    daily_loop_cap: num('daily_loop_cap'),
  };
}
