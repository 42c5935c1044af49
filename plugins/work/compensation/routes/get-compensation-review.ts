import { defineRoute } from '../../../../core/plugin/route.js';
import { CompensationServiceToken } from '../compensation-service.js';
import { CompensationReviewQuery, CompensationReviewSchema } from '../schemas.js';

export const getCompensationReview = defineRoute({
  operationId: 'getCompensationReview',
  method: 'GET',
  path: '/v1/work/compensation/review',
  summary: "Compensations of members' runs, per member, against the fleet",
  description:
    "Operator only. Per member: runs, compensations (a run cancelled before its end, a failure verdict on the run or its work, its work cancelled or corrected, a failed run retried on its source thread), the rate, breakdowns by seam and by violated assumption, and the anomaly score against the fleet median (the pooled fleet rate when the median is 0). Read from the work_compensation fold.",
  tags: ['work'],
  auth: { scope: 'admin' },
  request: { query: CompensationReviewQuery },
  responses: { 200: { description: 'The review, highest anomaly first.', schema: CompensationReviewSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { compensation: CompensationServiceToken },
  handler: async ({ query }, { compensation }) => compensation.review(query),
});
