import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../config.js';
import { GraphFacetsSchema } from '../graph-answer.js';
import { GraphServiceToken } from '../graph-service.js';

export const getGraphFacets = defineRoute({
  operationId: 'getGraphFacets',
  method: 'GET',
  path: '/v1/graph/facets',
  summary: 'The body kinds, actors and threads of the graph the caller may read, most records first',
  description: 'Read from the graph fold: a credential limited to some threads or namespaces sees only the kinds, actors and threads of the records it may read.',
  tags: ['graph'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object({ limit: Type.Optional(Type.Integer({ description: `Rows per list, 1..${MAX_LIMIT}. @default ${DEFAULT_LIMIT}` })) }, { additionalProperties: false }),
  },
  responses: { 200: { description: 'The facets and their totals.', schema: GraphFacetsSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { graph: GraphServiceToken },
  handler: ({ query, caller }, { graph }) => graph.facets(caller, query),
});
