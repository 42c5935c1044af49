/**
 * One parsed graph query run over one caller's view: its nodes resolved
 * (404 when a node does not exist for this caller, exactly as when it does
 * not exist at all), the operation run under a fresh budget, and the answer
 * assembled with what was cut and what was spent.
 */
import { LoomError } from '../../core/errors/loom-error.js';
import { centrality } from './centrality.js';
import type { GraphBounds } from './config.js';
import type { GraphQueryAnswer } from './graph-answer.js';
import type { GraphQuery } from './graph-query-params.js';
import type { GraphView } from './graph-view.js';
import { neighborhood } from './neighborhood.js';
import { nodeId, type NodeRef } from './node-id.js';
import { QueryBudget } from './query-budget.js';
import { sharedContext } from './shared-context.js';
import { shortestPath } from './shortest-path.js';

export interface FoldPosition {
  readonly watermark: number;
  readonly restricted: boolean;
}

type Outcome = Pick<GraphQueryAnswer, 'nodes' | 'edges'> & Partial<Pick<GraphQueryAnswer, 'path' | 'ranking'>>;

export async function runGraphQuery(view: GraphView, query: GraphQuery, bounds: GraphBounds, position: FoldPosition): Promise<GraphQueryAnswer> {
  const budget = new QueryBudget(bounds);
  let outcome: Outcome;
  switch (query.op) {
    case 'path': {
      await mustExist(view, 'from', query.from);
      await mustExist(view, 'to', query.to);
      const found = await shortestPath(view, budget, query.from, query.to);
      const nodes = [];
      for (const ref of found.path ?? []) nodes.push(await view.node(ref));
      outcome = { nodes, edges: found.edges, path: found.path ? nodes.map((n) => n.id) : null };
      break;
    }
    case 'shared_context':
      await mustExist(view, 'a', { kind: 'actor', key: query.a });
      await mustExist(view, 'b', { kind: 'actor', key: query.b });
      outcome = await sharedContext(view, budget, query.a, query.b, query.limit);
      break;
    case 'neighborhood':
      await mustExist(view, 'node', query.node);
      outcome = await neighborhood(view, budget, query.node, query.k, query.limit);
      break;
    case 'centrality':
      outcome = { ...(await centrality(view, budget, query.kind, query.limit)), edges: [] };
      break;
  }
  return {
    object: 'graph_query',
    op: query.op,
    watermark: position.watermark,
    restricted: position.restricted,
    ...outcome,
    truncated: budget.truncated,
    truncated_by: budget.truncatedBy,
    bounds: {
      ...('limit' in query ? { limit: query.limit } : {}),
      ...(query.op === 'neighborhood' ? { k: query.k } : {}),
      max_depth: bounds.maxDepth,
      max_fanout: bounds.maxFanout,
      max_expanded: bounds.maxExpanded,
      max_edges: bounds.maxEdges,
    },
    work: { expanded: budget.expanded, edges_examined: budget.examined },
  };
}

async function mustExist(view: GraphView, parameter: string, ref: NodeRef): Promise<void> {
  if (!(await view.exists(ref))) throw new LoomError('NOT_FOUND', `${parameter}: no node ${nodeId(ref.kind, ref.key)} in the graph this credential can read`);
}
