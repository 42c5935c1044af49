/**
 * TICK (spec §1, default every 60 s): drift detection. A dispatch is drift
 * when its timeout (budget.max_duration_secs) has passed and nothing fulfilled
 * or cancelled it: `unacknowledged` when nobody but the engine wrote on its
 * thread, `overdue` when the target acknowledged but did not finish. TICK
 * writes one KNOW (core.engine.drift.v1, dispatch_handled) on the dispatch
 * thread, parented to the dispatch, once per dispatch; the firing's trigger
 * slot is free from then on.
 */
import type { OwnFold } from '../../core/plugin/own-fold.js';
import type { Logger } from '../../core/plugin/logger.js';
import { type DispatchState } from './dispatch/dispatch-fold.js';
import { KIND_DRIFT } from './dispatch/dispatch-kinds.js';
import type { Dispatcher } from './dispatch/dispatcher.js';

export class DriftDetector {
  noted = 0;

  constructor(
    private readonly dispatches: Pick<OwnFold<DispatchState>, 'state'>,
    private readonly dispatcher: Dispatcher,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  async step(): Promise<void> {
    const now = this.now();
    const state = this.dispatches.state();
    const due = [...state.open.values()].filter((entry) => entry.drift === null && entry.deadline_ms <= now);
    for (const entry of due) {
      const reason = entry.status === 'acknowledged' ? 'overdue' : 'unacknowledged';
      await this.dispatcher.noteOnThread(
        entry.thread,
        {
          kind: KIND_DRIFT,
          dispatch_handled: true,
          reason,
          dispatch: entry.id,
          target: entry.target,
          origin: { ...entry.origin },
          dispatched_at: entry.dispatched_at,
          timeout_secs: entry.budget.max_duration_secs,
          detected_at: new Date(now).toISOString(),
        },
        [entry.id],
      );
      this.noted++;
      this.log.log('warn', 'dispatch drift', { dispatch: entry.id, thread: entry.thread, target: entry.target, reason });
    }
  }
}
