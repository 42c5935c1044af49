/**
 * op=centrality: the most connected actors (or threads), by degree in the
 * actor–thread layer of the fold: an actor's degree is the number of
 * distinct threads it wrote on, a thread's the number of distinct actors who
 * wrote on it. Ties go to more records, then to the smaller id. Degree is
 * taken there because it is exact and cheap at any size (one pass over the
 * actors or threads in memory, no record read); record nodes are not ranked.
 */
import type { GraphNode } from './graph-answer.js';
import type { GraphView } from './graph-view.js';
import { nodeId } from './node-id.js';
import type { QueryBudget } from './query-budget.js';
import { byCountThenId, TopN } from './top-n.js';

export type CentralityKind = 'actor' | 'thread';
export const CENTRALITY_KINDS: readonly CentralityKind[] = ['actor', 'thread'];

export interface RankEntry {
  id: string;
  degree: number;
  records: number;
}

interface Candidate {
  key: string;
  degree: number;
  records: number;
}

export interface CentralityResult {
  nodes: GraphNode[];
  ranking: RankEntry[];
}

export async function centrality(view: GraphView, budget: QueryBudget, kind: CentralityKind, limit: number): Promise<CentralityResult> {
  const tieBreak = byCountThenId<Candidate>((c) => c.records, (c) => c.key);
  const top = new TopN<Candidate>(limit, (a, b) => b.degree - a.degree || tieBreak(a, b));
  if (kind === 'actor') for (const actor of view.state.actors.values()) top.offer({ key: actor.did, degree: actor.threads.size, records: actor.records });
  else for (const thread of view.state.threads.values()) top.offer({ key: thread.id, degree: thread.actors.size, records: thread.records });
  if (top.cut) budget.cut('limit');
  const ranked = top.sorted();
  const nodes: GraphNode[] = [];
  for (const entry of ranked) nodes.push(await view.node({ kind, key: entry.key }));
  return { nodes, ranking: ranked.map((e) => ({ id: nodeId(kind, e.key), degree: e.degree, records: e.records })) };
}
