/**
 * The read side of the compensation review: the work_compensation fold's
 * own state, scored per answer (compensation-review.ts). Operator-only at
 * the doors (routes/), so it answers without a read view: the review is an
 * operator's account of the whole fleet.
 */
import { token } from '../../../core/di/token.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import { compensationReview, type CompensationReview } from './compensation-review.js';
import type { CompensationState } from './compensation-state.js';

export const TOP_LIMIT_DEFAULT = 10;
export const TOP_LIMIT_MAX = 100;

export interface TopQuery {
  readonly limit?: number;
  /** Members with fewer runs are left out (a single cancelled run is a rate of 1). @default 1 */
  readonly min_runs?: number;
}

export class CompensationService {
  constructor(private readonly fold: Pick<OwnFold<CompensationState>, 'snapshot'>) {}

  /** Every member with runs, or only `actor`; the fleet figures are always the whole fleet's. */
  review(query: { readonly actor?: string } = {}): CompensationReview {
    const { state, watermark } = this.fold.snapshot();
    const review = compensationReview(state, watermark);
    if (query.actor !== undefined) review.data = review.data.filter((row) => row.actor === query.actor);
    return review;
  }

  /** The most anomalous members that were compensated at all, highest first. */
  top(query: TopQuery = {}): CompensationReview {
    const review = this.review();
    const minRuns = query.min_runs ?? 1;
    review.data = review.data.filter((row) => row.compensations > 0 && row.runs >= minRuns).slice(0, query.limit ?? TOP_LIMIT_DEFAULT);
    return review;
  }
}

export const CompensationServiceToken = token<CompensationService>('work.CompensationService');
