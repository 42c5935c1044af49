import { defineRoute } from '../../../../core/plugin/route.js';
import { RunServiceToken } from '../run-service.js';
import { ActorDidParams, ActorUsageSchema } from '../schemas.js';

export const getActorUsage = defineRoute({
  operationId: 'getActorUsage',
  method: 'GET',
  path: '/v1/actors/{did}/usage',
  summary: "A member's usage today",
  description: "Runs the member started today (the UTC day of the server's clock) and their tokens and spend, from its run records; zeros when none. Only runs whose thread the caller may read.",
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: ActorDidParams },
  responses: { 200: { description: 'The usage.', schema: ActorUsageSchema } },
  errors: [],
  inject: { runs: RunServiceToken },
  handler: async ({ params, caller }, { runs }) => runs.usage(caller, params.did),
});
