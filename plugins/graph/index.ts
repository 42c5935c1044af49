/**
 * The graph plugin (spec §4.6): GET /v1/graph/query (path, shared_context,
 * neighborhood, centrality) and GET /v1/graph/facets, over the `graph`
 * global fold (the actor/thread layer, checkpointed) and record nodes read
 * lazily through each caller's RecordReader, so every answer is filtered by
 * what the caller may read.
 */
import { bindValue, resolve } from '../../core/di/token.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { definePlugin, type LoomPlugin } from '../../core/plugin/plugin.js';
import { GraphOptions } from './config.js';
import { graphFold } from './graph-fold.js';
import { GraphService, GraphServiceToken } from './graph-service.js';
import { getGraphFacets } from './routes/get-graph-facets.js';
import { getGraphQuery } from './routes/get-graph-query.js';

export { GraphOptions, MAX_K, MAX_LIMIT, DEFAULT_LIMIT, type GraphBounds } from './config.js';
export { GRAPH_FOLD, graphFold, type GraphSummary } from './graph-fold.js';
export { GraphServiceToken, type GraphService } from './graph-service.js';
export { GraphNodeSchema, GraphEdgeSchema, GraphQueryAnswerSchema, GraphFacetsSchema, type GraphNode, type GraphEdge, type GraphQueryAnswer, type GraphFacets } from './graph-answer.js';
export { parseNodeId, nodeId, type NodeRef, type NodeKind } from './node-id.js';

export const GRAPH_ROUTES = [getGraphQuery, getGraphFacets] as const;

export const graphPlugin: LoomPlugin<typeof GraphOptions> = definePlugin({
  name: 'graph',
  tags: {
    graph: 'The graph of actors, threads and records, and traversal queries over it.',
  },
  version: '1.0.0',
  dependencies: ['ledger'],
  options: GraphOptions,
  register(scope, options) {
    scope.fold(graphFold);
    bindValue(scope.container, GraphServiceToken, new GraphService(resolve(scope.container, RecordReaderToken), options));
    for (const route of GRAPH_ROUTES) scope.route(route);
    scope.capability('graph.query', true);
  },
});
