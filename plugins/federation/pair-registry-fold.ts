/**
 * The sync pair registry as a global fold over `th_federation_pairs`
 * (pair-records.ts applies one lifecycle record): every server of a shared
 * log sees a pair the moment any of them created it, and the registry is
 * current for the next request (the fold engine applies it inline).
 */
import type { Fold } from '../../core/folds/fold.js';
import { TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import { applyPairRecord, type PairEntry } from './pair-records.js';

export type PairRegistry = Map<string, PairEntry>;

export const pairRegistryFold: Fold<PairRegistry, PairEntry[]> = {
  name: 'federation_pairs',
  scope: 'global',
  description: 'The sync pairs of this instance with their settings and whether they are paused (th_federation_pairs); never a peer token.',
  threads: [TH_FEDERATION_PAIRS],
  initial: () => new Map(),
  apply(state, input) {
    applyPairRecord(state, input.record);
    return state;
  },
  value: (state) => [...state.values()],
};
