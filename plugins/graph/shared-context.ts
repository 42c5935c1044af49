/**
 * op=shared_context: the threads two actors both wrote on, most records
 * (of the two together) first, then by thread id. Read from the fold's
 * actor–thread layer: the smaller of the two thread lists is walked, one
 * examined edge per entry, so the work is bounded by `max_edges` too.
 */
import type { GraphEdge, GraphNode } from './graph-answer.js';
import type { GraphView } from './graph-view.js';
import { nodeId } from './node-id.js';
import type { QueryBudget } from './query-budget.js';
import { byCountThenId, TopN } from './top-n.js';

export interface SharedContextResult {
  nodes: GraphNode[];
  edges: GraphEdge[];
}

export async function sharedContext(view: GraphView, budget: QueryBudget, a: string, b: string, limit: number): Promise<SharedContextResult> {
  const left = view.state.actors.get(a)!;
  const right = view.state.actors.get(b)!;
  const [small, large] = left.threads.size <= right.threads.size ? [left, right] : [right, left];
  const top = new TopN<{ thread: string; a: number; b: number }>(limit, byCountThenId((s) => s.a + s.b, (s) => s.thread));
  for (const [thread, count] of small.threads) {
    if (!budget.examine()) break;
    const other = large.threads.get(thread);
    if (other === undefined) continue;
    top.offer(small === left ? { thread, a: count, b: other } : { thread, a: other, b: count });
  }
  if (top.cut) budget.cut('limit');
  const shared = top.sorted();
  const nodes: GraphNode[] = [await view.node({ kind: 'actor', key: a })];
  if (b !== a) nodes.push(await view.node({ kind: 'actor', key: b }));
  const edges: GraphEdge[] = [];
  for (const { thread, a: countA, b: countB } of shared) {
    nodes.push(await view.node({ kind: 'thread', key: thread }));
    const to = nodeId('thread', thread);
    edges.push({ from: nodeId('actor', a), to, kind: 'wrote_in', count: countA });
    if (b !== a) edges.push({ from: nodeId('actor', b), to, kind: 'wrote_in', count: countB });
  }
  return { nodes, edges };
}
