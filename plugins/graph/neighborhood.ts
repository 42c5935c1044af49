/**
 * op=neighborhood: the nodes within `k` hops of a start node, breadth first.
 * Each ring is expanded in the order its nodes were found, each node's
 * neighbours in GraphView's fixed order. The answer holds the first `limit`
 * nodes found (the start first), so the work is bounded by `limit` as well
 * as the budget: the search stops at the first node it cannot return. Edges
 * are those examined between returned nodes; edges between two nodes of the
 * outer ring are not listed (finding them would take one more expansion).
 */
import type { GraphEdge, GraphNode } from './graph-answer.js';
import { boundedNeighbors, type GraphView } from './graph-view.js';
import { nodeId, type NodeRef } from './node-id.js';
import type { QueryBudget } from './query-budget.js';

export interface NeighborhoodResult {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export async function neighborhood(view: GraphView, budget: QueryBudget, start: NodeRef, k: number, limit: number): Promise<NeighborhoodResult> {
  const found: { ref: NodeRef; depth: number }[] = [{ ref: start, depth: 0 }];
  const seen = new Set([nodeId(start.kind, start.key)]);
  const edges = new EdgeSet();
  let ring: NodeRef[] = [start];
  search: for (let depth = 1; depth <= k && ring.length > 0; depth++) {
    const next: NodeRef[] = [];
    for (const ref of ring) {
      if (!budget.expand()) break search;
      for await (const { node, edge } of boundedNeighbors(view, budget, ref, limit - found.length)) {
        const id = nodeId(node.kind, node.key);
        if (!seen.has(id)) {
          if (found.length === limit) {
            budget.cut('limit');
            break search;
          }
          seen.add(id);
          found.push({ ref: node, depth });
          next.push(node);
        }
        edges.add(edge);
      }
      if (budget.exhausted) break search;
    }
    ring = next;
  }
  const nodes: GraphNode[] = [];
  for (const { ref, depth } of found) nodes.push({ ...(await view.node(ref)), depth });
  return { nodes, edges: edges.list() };
}

/** Edges in the order first seen, each once (a node pair may be examined from both ends). */
export class EdgeSet {
  private readonly edges = new Map<string, GraphEdge>();

  add(edge: GraphEdge): void {
    const key = `${edge.from}\u0000${edge.kind}\u0000${edge.to}`;
    if (!this.edges.has(key)) this.edges.set(key, edge);
  }

  list(): GraphEdge[] {
    return [...this.edges.values()];
  }
}
