/**
 * op=path: a shortest path from one node to another, breadth first along
 * GraphView's directions (so path(a, b) and path(b, a) may differ: a child
 * reaches its parent in one hop, a parent its child through their thread).
 * At most `max_depth` hops. Among shortest paths, the one found first in the
 * fixed neighbour order. The path is the shortest there is only when the
 * answer is not truncated: a cut list or an exhausted budget may hide one.
 */
import type { GraphEdge } from './graph-answer.js';
import { boundedNeighbors, type GraphView } from './graph-view.js';
import { nodeId, type NodeRef } from './node-id.js';
import type { QueryBudget } from './query-budget.js';

export interface PathResult {
  /** The nodes from `from` to `to`, or null when none was found. */
  path: NodeRef[] | null;
  /** The edges along it, in path order. */
  edges: GraphEdge[];
}

export async function shortestPath(view: GraphView, budget: QueryBudget, from: NodeRef, to: NodeRef): Promise<PathResult> {
  const target = nodeId(to.kind, to.key);
  if (nodeId(from.kind, from.key) === target) return { path: [from], edges: [] };
  /** Each found node's predecessor and the edge that reached it. */
  const reached = new Map<string, { ref: NodeRef; prev: string | null; edge: GraphEdge | null }>([[nodeId(from.kind, from.key), { ref: from, prev: null, edge: null }]]);
  let ring: NodeRef[] = [from];
  for (let depth = 1; depth <= budget.bounds.maxDepth && ring.length > 0; depth++) {
    const next: NodeRef[] = [];
    for (const ref of ring) {
      if (!budget.expand()) return { path: null, edges: [] };
      const at = nodeId(ref.kind, ref.key);
      for await (const { node, edge } of boundedNeighbors(view, budget, ref, budget.bounds.maxFanout)) {
        const id = nodeId(node.kind, node.key);
        if (reached.has(id)) continue;
        reached.set(id, { ref: node, prev: at, edge });
        if (id === target) return unwind(reached, target);
        next.push(node);
      }
      if (budget.exhausted) return { path: null, edges: [] };
    }
    ring = next;
  }
  if (ring.length > 0) budget.cut('max_depth');
  return { path: null, edges: [] };
}

function unwind(reached: Map<string, { ref: NodeRef; prev: string | null; edge: GraphEdge | null }>, target: string): PathResult {
  const path: NodeRef[] = [];
  const edges: GraphEdge[] = [];
  for (let id: string | null = target; id !== null; ) {
    const step: { ref: NodeRef; prev: string | null; edge: GraphEdge | null } = reached.get(id)!;
    path.push(step.ref);
    if (step.edge) edges.push(step.edge);
    id = step.prev;
  }
  return { path: path.reverse(), edges: edges.reverse() };
}
