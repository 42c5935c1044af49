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
  /** Runs of one actor at once. */
  readonly concurrency: number | null;
  /** How deep a run's fan-out may go (a child is depth 1). */
  readonly max_depth: number | null;
  /** Children one run may start. */
  readonly max_children: number | null;
  /** Runs one tree may hold, the root included. */
  readonly max_tree_loops: number | null;
  /**
   * Whether a call of a destructive tool (ToolDescriptor.destructive) waits
   * on a person's approval (a decision) before it runs. Off in every shipped
   * tier (docs: decisions34); an operator turns it on per tier with the
   * `tier` topic.
   */
  readonly approve_destructive: boolean;
}

export const TIER_CAPS: Readonly<Record<Tier, TierCaps>> = {
  trial: { max_turns: 20, wall_clock_secs: 600, token_budget: 400_000, default_budget_usd: 1, daily_cost_cap_usd: 5, daily_loop_cap: 50, concurrency: 4, max_depth: 1, max_children: 3, max_tree_loops: 10, approve_destructive: false },
  paid: { max_turns: 50, wall_clock_secs: 1_800, token_budget: 2_000_000, default_budget_usd: 5, daily_cost_cap_usd: 50, daily_loop_cap: 500, concurrency: 16, max_depth: 2, max_children: 5, max_tree_loops: 25, approve_destructive: false },
  team: { max_turns: 100, wall_clock_secs: 3_600, token_budget: 8_000_000, default_budget_usd: 20, daily_cost_cap_usd: 200, daily_loop_cap: 2_000, concurrency: 64, max_depth: 3, max_children: 10, max_tree_loops: 100, approve_destructive: false },
  operator: { max_turns: null, wall_clock_secs: null, token_budget: null, default_budget_usd: null, daily_cost_cap_usd: null, daily_loop_cap: null, concurrency: null, max_depth: null, max_children: null, max_tree_loops: null, approve_destructive: false },
};

const Cap = (maximum: number) => Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum }), Type.Null()]));

/**
 * `tier` (records `core.engine.tier.v1` on th_engine_config, prior art
 * §1.19): the caps of Trial, Paid or Team, field by field; an absent field
 * keeps the shipped number, null lifts the cap. Operator is not editable
 * (unbounded), nor is the forbidden-tool set (fixed: tools needing `admin`).
 */
export const tierTopic = defineConfigTopic({
  topic: 'tier',
  description: 'The caps of a tier (trial, paid or team), field by field: max_turns, wall_clock_secs, token_budget, daily_loop_cap, concurrency, max_depth, max_children, max_tree_loops, daily_cost_cap_usd, default_budget_usd (absent keeps the default, null lifts the cap), and approve_destructive (true: a destructive tool call waits on a person’s approval). Records of kind core.engine.tier.v1.',
  schema: Type.Object(
    {
      tier: Type.Union([Type.Literal('trial'), Type.Literal('paid'), Type.Literal('team')]),
      max_turns: Cap(100_000),
      wall_clock_secs: Cap(30 * 86_400),
      token_budget: Cap(1e12),
      daily_loop_cap: Cap(1e9),
      concurrency: Cap(100_000),
      max_depth: Cap(100),
      max_children: Cap(10_000),
      max_tree_loops: Cap(1e6),
      daily_cost_cap_usd: Cap(1e9),
      default_budget_usd: Cap(1e9),
      approve_destructive: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'tier',
});

/** A tier's caps: the shipped numbers with the `tier` topic's edits. */
export function tierCaps(config: Config, tier: Tier): TierCaps {
  const shipped = TIER_CAPS[tier];
  if (tier === 'operator') return shipped;
  const edits = config.keyed(tierTopic)[tier];
  if (!edits) return shipped;
  const caps: Record<string, number | boolean | null> = { ...shipped };
  for (const key of Object.keys(shipped)) {
    const value = (edits as unknown as Record<string, unknown>)[key];
    if (typeof shipped[key as keyof TierCaps] === 'boolean') {
      if (typeof value === 'boolean') caps[key] = value;
    } else if (value === null || typeof value === 'number') caps[key] = value;
  }
  return caps as unknown as TierCaps;
}

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
