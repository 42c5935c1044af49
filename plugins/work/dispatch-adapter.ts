/**
 * RECONCILE's way to a member (spec §1 dispatch, §4.10 adapters): a
 * dispatch whose target is a defined member with a model starts a run of
 * that member, the dispatch's goal as the run's goal, its budget as the
 * run's ceilings (cost, and duration as the wall clock), the dispatch
 * thread as the run's source. The run's outcome answers the dispatch on its
 * thread (run-driver.ts). A start refused (admission, daily caps, no
 * provider) is a failed delivery, which RECONCILE records and closes.
 * Anyone else (people, agents outside Loom) keeps the built-in `record`
 * adapter: the dispatch record is the delivery.
 */
import { SYSTEM } from '../../core/access/caller.js';
import type { MemberService } from '../members/index.js';
import type { Dispatch, DispatchAdapter } from '../rules/index.js';
import type { RunStarter } from './loop/run-starter.js';

export function memberRunAdapter(members: MemberService, starter: RunStarter): DispatchAdapter {
  return {
    name: 'member-run',
    description: 'Starts a run of the target member (a defined member with a model): the dispatch goal, its budget as the run ceilings; the run outcome answers the dispatch on its thread.',
    accepts: (target) => {
      const entry = members.entry(target);
      return entry !== null && !entry.current.retired && entry.current.mechanism === 'llm' && entry.current.work_loop.model !== null;
    },
    deliver: async (dispatch: Dispatch) => {
      const plan = await starter.planMemberRun(SYSTEM, dispatch.target, {
        goal: dispatch.goal,
        source_thread: dispatch.parent_thread,
        budget_usd: dispatch.budget.max_cost_usd,
        wall_clock_secs: dispatch.budget.max_duration_secs,
        tags: ['dispatch'],
        dispatch: { id: dispatch.id, thread: dispatch.thread },
      });
      await starter.start(plan);
    },
  };
}
