/**
 * Saving the work_compensation state: the runs, the records they wrote, the
 * verdicts on them, the compensations in force and the failed runs awaiting
 * a retry. The per-actor tallies are not saved: they are rebuilt from the
 * runs and compensations, so a checkpoint cannot carry a tally that
 * disagrees with what it counts.
 */
import type { FoldCheckpoint } from '../../../core/folds/fold.js';
import { addCompensation, addRun, emptyCompensationState, type Compensation, type CompensationState, type RunMark, type VerdictMark } from './compensation-state.js';

interface SavedCompensationState {
  runs: RunMark[];
  produced: Array<[string, string]>;
  verdicts: Array<[string, VerdictMark]>;
  compensations: Array<[string, Compensation]>;
  awaitingRetry: Array<[string, string[]]>;
}

export const compensationCheckpoint: FoldCheckpoint<CompensationState> = {
  version: 1,
  save: (state): SavedCompensationState => ({
    runs: [...state.runs.values()],
    produced: [...state.produced.entries()],
    verdicts: [...state.verdicts.entries()],
    compensations: [...state.compensations.entries()],
    awaitingRetry: [...state.awaitingRetry.entries()],
  }),
  load: (saved) => {
    const s = saved as SavedCompensationState;
    const state = emptyCompensationState();
    for (const run of s.runs) addRun(state, { ...run });
    state.produced = new Map(s.produced);
    state.verdicts = new Map(s.verdicts.map(([id, verdict]) => [id, { ...verdict }]));
    for (const [key, compensation] of s.compensations) addCompensation(state, key, compensation);
    state.awaitingRetry = new Map(s.awaitingRetry.map(([source, threads]) => [source, [...threads]]));
    return state;
  },
};
