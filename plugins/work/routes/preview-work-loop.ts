import { defineRoute } from '../../../core/plugin/route.js';
import { WorkLoopBody, WorkLoopPreviewSchema } from '../schemas.js';
import { RunStarterToken } from '../work-tokens.js';

export const previewWorkLoop = defineRoute({
  operationId: 'previewWorkLoop',
  method: 'POST',
  path: '/v1/work/loop/preview',
  summary: 'What a work loop would get',
  description:
    'The caller’s tier and its caps, the effective ceilings of this request, usage today, the most the loop could spend, the tools it would get by default and may ask for, and whether a start would be denied now (`denial_reason` WORK_DAILY_CAP_EXCEEDED or WORK_DAILY_COUNT_EXCEEDED). Writes nothing.',
  tags: ['work'],
  auth: { scope: 'records:read' },
  invalidInput: 'INVALID_BODY',
  request: { body: WorkLoopBody },
  responses: { 200: { description: 'The preview.', schema: WorkLoopPreviewSchema } },
  errors: ['INVALID_BODY'],
  inject: { starter: RunStarterToken },
  handler: async ({ body, caller }, { starter }) => starter.preview(caller, body),
});
