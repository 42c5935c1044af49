/**
 * GET /v1/graph/facets: the body kinds, actors and threads in the caller's
 * view of the graph fold, each list most records first (ties by id) and cut
 * at `limit`, with the totals before the cut. Read from memory only.
 */
import type { GraphFacets } from './graph-answer.js';
import type { GraphState } from './graph-state.js';
import { nodeId } from './node-id.js';
import { byCountThenId, TopN } from './top-n.js';

export function facets(state: GraphState, limit: number): Omit<GraphFacets, 'object' | 'watermark' | 'restricted'> {
  const kinds = new TopN<[string, number]>(limit, byCountThenId((k) => k[1], (k) => k[0]));
  for (const entry of state.kinds) kinds.offer(entry);
  const actors = new TopN<{ did: string; records: number }>(limit, byCountThenId((a) => a.records, (a) => a.did));
  for (const actor of state.actors.values()) actors.offer(actor);
  const threads = new TopN<{ id: string; records: number }>(limit, byCountThenId((t) => t.records, (t) => t.id));
  for (const thread of state.threads.values()) threads.offer(thread);
  return {
    limit,
    kinds: kinds.sorted().map(([kind, records]) => ({ kind, records })),
    actors: actors.sorted().map(({ did }) => {
      const actor = state.actors.get(did)!;
      return { id: nodeId('actor', did), did, records: actor.records, threads: actor.threads.size, assigned: actor.assigned.length };
    }),
    threads: threads.sorted().map(({ id }) => {
      const thread = state.threads.get(id)!;
      return { id: nodeId('thread', id), thread: id, label: thread.label ?? id, records: thread.records, actors: thread.actors.size };
    }),
    totals: { records: state.records, kinds: state.kinds.size, actors: state.actors.size, threads: state.threads.size },
    truncated: kinds.cut || actors.cut || threads.cut,
  };
}
