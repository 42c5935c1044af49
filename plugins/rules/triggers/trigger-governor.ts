/**
 * Rate limits of event triggers (spec §2.9, §8): after a firing a trigger
 * waits `cooldown` seconds, and at most `max_concurrent` of its firings are
 * open at once (a firing is open until its dispatch completes or its timeout
 * passes). Decisions are made one record at a time by RECONCILE and reserve
 * their slot immediately, so a burst of matches fires once, not once per
 * record that arrived before the first dispatch was written. After a restart
 * the history comes back from the dispatches fold.
 */
import { token } from '../../../core/di/token.js';
import type { DispatchState } from '../dispatch/dispatch-fold.js';
import type { EventTrigger } from '../topics.js';

export type Suppression = 'cooldown' | 'max_concurrent';

export class TriggerGovernor {
  /** Firings decided but not yet visible in the fold, per trigger. */
  private readonly pending = new Map<string, number>();
  /** Last firing decided here, per trigger (Unix ms). */
  private readonly lastFired = new Map<string, number>();

  constructor(
    private readonly dispatches: () => DispatchState,
    private readonly now: () => number,
  ) {}

  private lastFiredMs(name: string): number {
    const folded = this.dispatches().triggers.get(name)?.last_fired_at;
    return Math.max(this.lastFired.get(name) ?? -Infinity, folded ? Date.parse(folded) : -Infinity);
  }

  /** Firings of `name` still open: not completed, not failed, not past their timeout. */
  openFirings(name: string): number {
    const now = this.now();
    let open = this.pending.get(name) ?? 0;
    for (const entry of this.dispatches().open.values()) {
      if (entry.origin.type === 'trigger' && entry.origin.name === name && entry.drift === null && entry.deadline_ms > now) open++;
    }
    return open;
  }

  /** Null when the trigger may fire now (and reserves the firing), else why not. */
  admit(trigger: EventTrigger): Suppression | null {
    const now = this.now();
    if (now - this.lastFiredMs(trigger.name) < trigger.cooldown * 1000) return 'cooldown';
    if (this.openFirings(trigger.name) >= trigger.max_concurrent) return 'max_concurrent';
    this.lastFired.set(trigger.name, now);
    this.pending.set(trigger.name, (this.pending.get(trigger.name) ?? 0) + 1);
    return null;
  }

  /** The reserved firing was written (now in the fold) or dropped. */
  settle(name: string): void {
    const left = (this.pending.get(name) ?? 1) - 1;
    if (left <= 0) this.pending.delete(name);
    else this.pending.set(name, left);
  }
}

export const TriggerGovernorToken = token<TriggerGovernor>('rules.TriggerGovernor');
