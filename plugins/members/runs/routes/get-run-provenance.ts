import { defineRoute } from '../../../../core/plugin/route.js';
import { RunServiceToken } from '../run-service.js';
import { RunProvenanceSchema, RunThreadParams } from '../schemas.js';

export const getRunProvenance = defineRoute({
  operationId: 'getRunProvenance',
  method: 'GET',
  path: '/v1/runs/{thread}/provenance',
  summary: 'The definition, prompt and frame records a run names',
  description: 'The records the run row names (`definition`, `prompt`, `frame`), each read through the caller’s view: one the caller may not read, or that the run does not name, is null.',
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: RunThreadParams },
  responses: { 200: { description: 'The provenance records.', schema: RunProvenanceSchema } },
  errors: ['NOT_FOUND'],
  inject: { runs: RunServiceToken },
  handler: async ({ params, caller }, { runs }) => runs.provenance(caller, params.thread),
});
