/**
 * member_runs: every run on record, indexed by (member, definition), so
 * scoring finds the runs under a definition without scanning the log. A run
 * is the first `core.work.run.v1` on its thread (the thread id is the run
 * id) naming a definition; it has ended once its member wrote a
 * `core.work.loop_outcome.v1` there. O(1) per record: a kind test, and for
 * the two kinds a map update. The work loop's run rows (GET /v1/runs) can
 * grow out of this fold or sit beside it.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { isRecordId } from '../../../core/records/record-id.js';
import { KIND_LOOP_OUTCOME, KIND_RUN } from './run-records.js';

export const MEMBER_RUNS_FOLD = 'member_runs';

export interface RunEntry {
  /** The run's thread (the run id). */
  readonly thread: string;
  /** Its opening record id. */
  readonly id: string;
  readonly actor: string;
  readonly definition: string;
  readonly sequence: number;
  /** The outcome once ended (`completed`, `cancelled`, …), else null. */
  outcome: string | null;
}

export interface RunIndexState {
  runs: Map<string, RunEntry>;
  /** By `runKey(actor, definition)`, oldest first. */
  byDefinition: Map<string, RunEntry[]>;
}

export const runKey = (actor: string, definition: string): string => `${actor}\n${definition}`;

function index(state: RunIndexState, entry: RunEntry): void {
  state.runs.set(entry.thread, entry);
  const key = runKey(entry.actor, entry.definition);
  let list = state.byDefinition.get(key);
  if (!list) state.byDefinition.set(key, (list = []));
  list.push(entry);
}

export const memberRunsFold: Fold<RunIndexState, { runs: number; ended: number }> = {
  name: MEMBER_RUNS_FOLD,
  scope: 'global',
  description: 'Runs on record by member and definition (the opening core.work.run.v1 of each run thread) and whether each has ended.',
  ignoresSystemThreads: true,
  initial: () => ({ runs: new Map(), byDefinition: new Map() }),
  apply(state, { record, sequence }) {
    const kind = record.body['kind'];
    if (kind === KIND_RUN) {
      const definition = record.body['definition'];
      if (state.runs.has(record.thread) || !isRecordId(definition)) return state;
      index(state, { thread: record.thread, id: record.id, actor: record.actor, definition, sequence, outcome: null });
    } else if (kind === KIND_LOOP_OUTCOME) {
      const entry = state.runs.get(record.thread);
      // Only the member's own first outcome ends its run (run-records.ts).
      if (entry && entry.outcome === null && record.actor === entry.actor) entry.outcome = typeof record.body['outcome'] === 'string' ? record.body['outcome'] : 'unknown';
    }
    return state;
  },
  value: (state) => {
    let ended = 0;
    for (const entry of state.runs.values()) if (entry.outcome !== null) ended++;
    return { runs: state.runs.size, ended };
  },
  checkpoint: {
    version: 1,
    save: (state) => [...state.runs.values()].sort((a, b) => a.sequence - b.sequence),
    load: (saved) => {
      const state: RunIndexState = { runs: new Map(), byDefinition: new Map() };
      for (const entry of saved as RunEntry[]) index(state, { ...entry });
      return state;
    },
  },
};
