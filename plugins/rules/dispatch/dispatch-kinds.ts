/** The records RECONCILE, TICK and the adapters write (docs/decisions.md, "Dispatch records"). */

/** The engine's own actor: dispatches, failures and drift notes. DIDs under did:sync:system:loom- are the instance's components. */
export const ENGINE_ACTOR = 'did:sync:system:loom-engine';

/** A dispatch: DO on the dispatch thread, parents = [the record that caused it]. */
export const KIND_DISPATCH = 'core.dispatch.v1';
/** The adapter could not deliver: KNOW on the dispatch thread; closes the dispatch. */
export const KIND_DISPATCH_FAILED = 'core.dispatch.failed.v1';
/** TICK found the dispatch past its timeout without completion: KNOW on the dispatch thread. */
export const KIND_DRIFT = 'core.engine.drift.v1';
/** A trigger firing's outcome, written by whoever did the work; closes the dispatch. */
export const KIND_TRIGGER_OUTCOME = 'core.trigger.outcome.v1';

/** Why a dispatch exists. */
export type DispatchOrigin =
  | { readonly type: 'rule'; readonly name: string }
  | { readonly type: 'trigger'; readonly name: string }
  | { readonly type: 'manual'; readonly by: string };

export function originKey(origin: DispatchOrigin): string {
  return origin.type === 'manual' ? `manual:${origin.by}` : `${origin.type}:${origin.name}`;
}

export interface DispatchBudget {
  readonly max_cost_usd: number;
  readonly max_duration_secs: number;
}

/** Routing-rule and manual dispatches without a budget get the trigger defaults (spec §8). */
export const DEFAULT_BUDGET: DispatchBudget = { max_cost_usd: 1.0, max_duration_secs: 300 };

/** Prefix of the DIDs of the instance's own components (engine, auth, the instance itself). */
export const INSTANCE_COMPONENT_PREFIX = 'did:sync:system:loom-';
