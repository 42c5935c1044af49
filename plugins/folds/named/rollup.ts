/**
 * rollup (global, GET /v1/folds/rollup): a digest of everything reachable,
 * i.e. every coordination record this instance holds that the caller may
 * see (system threads are skipped): how many records, threads and actors,
 * records by act, tasks by state, corrections and cancellations, the busiest
 * threads and most active actors (top ROLLUP_TOP), and the latest
 * ROLLUP_RECENT records as recent activity (content after corrections and
 * cancellations). Counters and bounded lists only, so each record is applied
 * in O(1); the value reads them out.
 */
import type { Act } from '../../../core/records/acts.js';
import type { Fold } from '../../../core/folds/fold.js';
import { cancelledBy, supersededBy } from '../../../core/folds/corrections.js';
import { applyToTaskBook, loadTaskBook, newTaskBook, saveTaskBook, type TaskBook, type TaskCounts } from './task-book.js';
import { applyToTimeline, entryText, loadTimeline, newTimeline, saveTimeline, timelineEntries, type TimelineState } from './timeline.js';
import { newTopCounts, noteCount, type TopCounts } from './top-counts.js';

export const ROLLUP_FOLD = 'rollup';
export const ROLLUP_TOP = 10;
export const ROLLUP_RECENT = 20;
/** Closed tasks tracked for late withdrawals, as task_list does (the counts agree). */
const ROLLUP_CLOSED_TASKS = 1000;

export interface RollupActivity {
  id: string;
  sequence: number;
  thread: string;
  actor: string;
  act: Act;
  kind: string | null;
  text: string;
  corrected_by: string | null;
  cancelled_by: string | null;
}

export interface RollupValue {
  records: number;
  threads: number;
  actors: number;
  records_by_act: Record<string, number>;
  tasks: TaskCounts;
  corrections: number;
  cancellations: number;
  busiest_threads: Array<{ thread: string; records: number }>;
  most_active_actors: Array<{ actor: string; records: number }>;
  /** The latest records, oldest first. */
  recent: RollupActivity[];
}

export interface RollupState {
  records: number;
  byAct: Record<string, number>;
  threads: Map<string, number>;
  actors: Map<string, number>;
  busiestThreads: TopCounts;
  activeActors: TopCounts;
  tasks: TaskBook;
  recent: TimelineState;
  corrections: number;
  cancellations: number;
}

function count(map: Map<string, number>, top: TopCounts, key: string): void {
  const next = (map.get(key) ?? 0) + 1;
  map.set(key, next);
  noteCount(top, key, next);
}

interface SavedRollup {
  records: number;
  byAct: Record<string, number>;
  threads: [string, number][];
  actors: [string, number][];
  busiestThreads: TopCounts;
  activeActors: TopCounts;
  tasks: unknown;
  recent: unknown;
  corrections: number;
  cancellations: number;
}

export const rollupFold: Fold<RollupState, RollupValue> = {
  name: ROLLUP_FOLD,
  scope: 'global',
  description: 'A digest of everything reachable: counts of records, threads, actors, records by act, tasks by state; busiest threads, most active actors and recent activity.',
  ignoresSystemThreads: true,
  initial: () => ({
    records: 0,
    byAct: {},
    threads: new Map(),
    actors: new Map(),
    busiestThreads: newTopCounts(ROLLUP_TOP),
    activeActors: newTopCounts(ROLLUP_TOP),
    tasks: newTaskBook({ detail: false, closedKept: ROLLUP_CLOSED_TASKS }),
    recent: newTimeline(ROLLUP_RECENT),
    corrections: 0,
    cancellations: 0,
  }),
  apply(state, { sequence, record }) {
    state.records += 1;
    state.byAct[record.act] = (state.byAct[record.act] ?? 0) + 1;
    count(state.threads, state.busiestThreads, record.thread);
    count(state.actors, state.activeActors, record.actor);
    applyToTaskBook(state.tasks, sequence, record);
    applyToTimeline(state.recent, sequence, record);
    if (supersededBy(record) !== null) state.corrections += 1;
    if (cancelledBy(record) !== null) state.cancellations += 1;
    return state;
  },
  value(state) {
    return {
      records: state.records,
      threads: state.threads.size,
      actors: state.actors.size,
      records_by_act: { ...state.byAct },
      tasks: { ...state.tasks.counts },
      corrections: state.corrections,
      cancellations: state.cancellations,
      busiest_threads: state.busiestThreads.entries.map(({ key, count }) => ({ thread: key, records: count })),
      most_active_actors: state.activeActors.entries.map(({ key, count }) => ({ actor: key, records: count })),
      recent: timelineEntries(state.recent).map((entry) => ({
        id: entry.id,
        sequence: entry.sequence,
        thread: entry.thread,
        actor: entry.actor,
        act: entry.act,
        kind: entry.kind,
        text: entryText(entry),
        corrected_by: entry.corrected_by,
        cancelled_by: entry.cancelled_by,
      })),
    };
  },
  checkpoint: {
    version: 1,
    save: (state): SavedRollup => ({
      records: state.records,
      byAct: state.byAct,
      threads: [...state.threads],
      actors: [...state.actors],
      busiestThreads: state.busiestThreads,
      activeActors: state.activeActors,
      tasks: saveTaskBook(state.tasks),
      recent: saveTimeline(state.recent),
      corrections: state.corrections,
      cancellations: state.cancellations,
    }),
    load: (saved) => {
      const s = saved as SavedRollup;
      return {
        records: s.records,
        byAct: { ...s.byAct },
        threads: new Map(s.threads),
        actors: new Map(s.actors),
        busiestThreads: { size: s.busiestThreads.size, entries: s.busiestThreads.entries.map((entry) => ({ ...entry })) },
        activeActors: { size: s.activeActors.size, entries: s.activeActors.entries.map((entry) => ({ ...entry })) },
        tasks: loadTaskBook(s.tasks),
        recent: loadTimeline(s.recent),
        corrections: s.corrections,
        cancellations: s.cancellations,
      };
    },
  },
};
