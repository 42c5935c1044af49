/**
 * Tiers (spec §2.9 `actor_tier`, §8): the ceilings a member's runs are
 * clamped to. A defined member runs at Trial unless an `actor_tier` record
 * assigns it Paid or Team; Operator is never assigned (it is the admin
 * credential's own). A declared daily cap may only narrow its tier's.
 * The numbers are Loom's choice (the spec shows none): docs/decisions.md.
 */
import { Type } from 'typebox';
import type { Config } from '../../core/folds/config/config-topic.js';
import { defineConfigTopic } from '../../core/folds/config/config-topic.js';

export type Tier = 'trial' | 'paid' | 'team' | 'operator';

export interface TierCaps {
  readonly max_turns: number | null;
  /** Wall time of one run, in seconds. */
  readonly wall_clock_secs: number | null;
  /** Input and output tokens of one run. */
  readonly token_budget: number | null;
  /** A run's budget when its member sets none. */
  readonly default_budget_usd: number | null;
  readonly daily_cost_cap_usd: number | null;
  readonly daily_loop_cap: number | null;
}

export const TIER_CAPS: Readonly<Record<Tier, TierCaps>> = {
  trial: { max_turns: 20, wall_clock_secs: 600, token_budget: 400_000, default_budget_usd: 1, daily_cost_cap_usd: 5, daily_loop_cap: 50 },
  paid: { max_turns: 50, wall_clock_secs: 1_800, token_budget: 2_000_000, default_budget_usd: 5, daily_cost_cap_usd: 50, daily_loop_cap: 500 },
  team: { max_turns: 100, wall_clock_secs: 3_600, token_budget: 8_000_000, default_budget_usd: 20, daily_cost_cap_usd: 200, daily_loop_cap: 2_000 },
  operator: { max_turns: null, wall_clock_secs: null, token_budget: null, default_budget_usd: null, daily_cost_cap_usd: null, daily_loop_cap: null },
};

export const actorTierTopic = defineConfigTopic({
  topic: 'actor_tier',
  description: 'The tier an actor runs at, by actor DID: paid or team (values above team are clamped to team; an empty tier clears the assignment, so the actor runs at trial).',
  schema: Type.Object({ actor: Type.String({ minLength: 1, maxLength: 512 }), tier: Type.Optional(Type.String({ maxLength: 20 })) }, { additionalProperties: false }),
  keyedBy: 'actor',
  normalise: (fields) => {
    if (fields.tier === undefined || fields.tier === '') return null;
    if (fields.tier === 'paid' || fields.tier === 'team') return { actor: fields.actor, tier: fields.tier };
    if (fields.tier === 'operator') return { actor: fields.actor, tier: 'team' };
    return `tier must be paid or team (or empty to clear), not ${fields.tier}`;
  },
});

export function tierOf(config: Config, actor: string): Exclude<Tier, 'operator'> {
  const entry = config.keyed(actorTierTopic)[actor];
  return entry ? (entry.tier as 'paid' | 'team') : 'trial';
}
