import { defineRoute } from '../../../../core/plugin/route.js';
import { RUN_SCAN_CEILING, RunServiceToken } from '../run-service.js';
import { ActorDidParams, ActorRunListSchema } from '../schemas.js';

export const listActorRuns = defineRoute({
  operationId: 'listActorRuns',
  method: 'GET',
  path: '/v1/actors/{did}/runs',
  summary: 'Runs a member executed or an owner’s members executed',
  description: `Run rows newest first: the runs of the member \`did\`, and of every member whose owner is \`did\`. The newest ${RUN_SCAN_CEILING} are read; \`truncated\` past that. Only runs whose thread the caller may read; an actor with no runs answers an empty list.`,
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: ActorDidParams },
  responses: { 200: { description: 'The run list.', schema: ActorRunListSchema } },
  errors: [],
  inject: { runs: RunServiceToken },
  handler: async ({ params, caller }, { runs }) => runs.actorRuns(caller, params.did),
});
