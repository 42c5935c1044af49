/**
 * The compensation review of the work plugin (spec §4.8), registered from
 * its index in one call: the work_compensation fold, the service over its
 * own state, the two operator doors and the capability flag `work.compensation`.
 */
import { bindValue } from '../../../core/di/token.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import { compensationFold } from './compensation-fold.js';
import { CompensationService, CompensationServiceToken } from './compensation-service.js';
import { getCompensationReview } from './routes/get-compensation-review.js';
import { getCompensationReviewTop } from './routes/get-compensation-review-top.js';

export const COMPENSATION_ROUTES = [getCompensationReview, getCompensationReviewTop] as const;

export function registerCompensation(scope: PluginScope): void {
  bindValue(scope.container, CompensationServiceToken, new CompensationService(scope.fold(compensationFold)));
  for (const route of COMPENSATION_ROUTES) scope.route(route);
  scope.capability('work.compensation', true);
}
