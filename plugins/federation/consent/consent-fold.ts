/**
 * The consent grants as a global fold over `th_consent` (spec §5.5): the
 * state is the ConsentIndex the changes feed and the gates ask. The fold
 * engine applies it inline with every publish, so a grant or a revocation
 * applies to the next request, and on a shared log it sees every server's
 * consent records.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { TH_CONSENT } from '../../../core/records/reserved-threads.js';
import { ConsentIndex } from './consent-index.js';

/** What GET /v1/folds/federation_consent shows: how many grants the index holds, revoked ones left out. */
export interface ConsentFoldValue {
  readonly grants: number;
}

export const consentFold: Fold<ConsentIndex, ConsentFoldValue> = {
  name: 'federation_consent',
  scope: 'global',
  description: 'The consent grants the federation changes feed serves records under (th_consent).',
  threads: [TH_CONSENT],
  initial: () => new ConsentIndex(),
  apply(state, input) {
    state.apply(input);
    return state;
  },
  value: (state) => ({ grants: state.size }),
};
