/**
 * Test support: the graph computed by brute force, for the property tests.
 * No fold and no lazy reads: every node's full neighbour list is built up
 * front from the caller's visible records, straight from the definitions in
 * graph-view.ts, and each operation is the plain textbook algorithm over
 * those lists, with the same bounds (see graph-view.ts, neighborhood.ts,
 * shortest-path.ts, shared-context.ts, centrality.ts, facets.ts).
 */
import { didSyntaxError } from '../../core/records/did-syntax.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { GraphBounds } from '../../plugins/graph/config.js';
import type { GraphEdge, Truncation } from '../../plugins/graph/graph-answer.js';
import { isSystemThread } from './random-graph.js';

export interface RefNeighbor {
  node: string;
  edge: GraphEdge;
}

export interface RefAnswer {
  nodes: string[];
  depths?: number[];
  edges: GraphEdge[];
  path?: string[] | null;
  truncatedBy: Truncation[];
}

const isHex64 = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{64}$/.test(value);
const validDid = (value: unknown): value is string => typeof value === 'string' && didSyntaxError(value) === null;

export class ReferenceGraph {
  /** Node id → its neighbours in the fixed order. */
  readonly adjacency = new Map<string, RefNeighbor[]>();
  readonly records: StoredRecord[];

  constructor(all: readonly StoredRecord[], visible: (stored: StoredRecord) => boolean) {
    this.records = all.filter((r) => visible(r) && !isSystemThread(r.record.thread));
    const recordIds = new Set(this.records.map((r) => r.record.id));
    const list = (id: string) => {
      let neighbors = this.adjacency.get(id);
      if (!neighbors) this.adjacency.set(id, (neighbors = []));
      return neighbors;
    };
    const count = (actor: string, thread: string) => this.records.filter((r) => r.record.actor === actor && r.record.thread === thread).length;
    // Actors and threads, with the first-appearance orders.
    for (const { record } of this.records) {
      list(`actor:${record.actor}`);
      list(`thread:${record.thread}`);
      if (record.act === 'INTEND' && validDid(record.body['assigned_to'])) list(`actor:${record.body['assigned_to']}`);
    }
    for (const id of [...this.adjacency.keys()]) {
      const neighbors = this.adjacency.get(id)!;
      if (id.startsWith('actor:')) {
        const did = id.slice(6);
        const mine = this.records.filter((r) => r.record.actor === did);
        for (const thread of [...new Set(mine.map((r) => r.record.thread))]) neighbors.push({ node: `thread:${thread}`, edge: { from: id, to: `thread:${thread}`, kind: 'wrote_in', count: count(did, thread) } });
        for (const { record } of this.records) if (record.act === 'INTEND' && record.body['assigned_to'] === did) neighbors.push({ node: `record:${record.id}`, edge: { from: `record:${record.id}`, to: id, kind: 'assigned_to' } });
        for (const { record } of mine) neighbors.push({ node: `record:${record.id}`, edge: { from: id, to: `record:${record.id}`, kind: 'authored' } });
      } else {
        const thread = id.slice(7);
        const here = this.records.filter((r) => r.record.thread === thread);
        for (const did of [...new Set(here.map((r) => r.record.actor))]) neighbors.push({ node: `actor:${did}`, edge: { from: `actor:${did}`, to: id, kind: 'wrote_in', count: count(did, thread) } });
        for (const { record } of here) neighbors.push({ node: `record:${record.id}`, edge: { from: `record:${record.id}`, to: id, kind: 'in_thread' } });
      }
    }
    for (const { record } of this.records) {
      const self = `record:${record.id}`;
      const neighbors = list(self);
      const to = (target: string, kind: GraphEdge['kind']) => neighbors.push({ node: `record:${target}`, edge: { from: self, to: `record:${target}`, kind } });
      neighbors.push({ node: `thread:${record.thread}`, edge: { from: self, to: `thread:${record.thread}`, kind: 'in_thread' } });
      neighbors.push({ node: `actor:${record.actor}`, edge: { from: `actor:${record.actor}`, to: self, kind: 'authored' } });
      for (const parent of record.parents) if (recordIds.has(parent)) to(parent, 'parent');
      const fulfills = record.body['fulfills'];
      if (isHex64(fulfills) && fulfills !== record.id && recordIds.has(fulfills)) to(fulfills, 'fulfills');
      if (isHex64(record.judged_by) && record.judged_by !== record.id && recordIds.has(record.judged_by)) to(record.judged_by, 'judged_by');
      const assignee = record.body['assigned_to'];
      if (record.act === 'INTEND' && validDid(assignee)) neighbors.push({ node: `actor:${assignee}`, edge: { from: self, to: `actor:${assignee}`, kind: 'assigned_to' } });
      for (const other of this.records) {
        if (other.record.body['fulfills'] === record.id && other.record.id !== record.id) neighbors.push({ node: `record:${other.record.id}`, edge: { from: `record:${other.record.id}`, to: self, kind: 'fulfills' } });
      }
      for (const other of this.records) {
        if (other.record.judged_by === record.id && other.record.id !== record.id) neighbors.push({ node: `record:${other.record.id}`, edge: { from: `record:${other.record.id}`, to: self, kind: 'judged_by' } });
      }
    }
  }

  has(node: string): boolean {
    return this.adjacency.has(node);
  }

  neighborhood(start: string, k: number, limit: number, bounds: GraphBounds): RefAnswer {
    const run = new Run(bounds);
    const nodes = [start];
    const depths = [0];
    const edges = new Map<string, GraphEdge>();
    let ring = [start];
    outer: for (let depth = 1; depth <= k && ring.length > 0; depth++) {
      const next: string[] = [];
      for (const node of ring) {
        if (!run.expand()) break outer;
        for (const { node: other, edge } of run.take(this.adjacency.get(node)!)) {
          if (!nodes.includes(other)) {
            if (nodes.length === limit) {
              run.hit('limit');
              break outer;
            }
            nodes.push(other);
            depths.push(depth);
            next.push(other);
          }
          const key = `${edge.from}|${edge.kind}|${edge.to}`;
          if (!edges.has(key)) edges.set(key, edge);
        }
        if (run.stopped) break outer;
      }
      ring = next;
    }
    return { nodes, depths, edges: [...edges.values()], truncatedBy: run.truncatedBy() };
  }

  path(from: string, to: string, bounds: GraphBounds): RefAnswer {
    if (from === to) return { nodes: [from], edges: [], path: [from], truncatedBy: [] };
    const run = new Run(bounds);
    const back = new Map<string, { prev: string; edge: GraphEdge } | null>([[from, null]]);
    let ring = [from];
    for (let depth = 1; depth <= bounds.maxDepth && ring.length > 0; depth++) {
      const next: string[] = [];
      for (const node of ring) {
        if (!run.expand()) return { nodes: [], edges: [], path: null, truncatedBy: run.truncatedBy() };
        for (const { node: other, edge } of run.take(this.adjacency.get(node)!)) {
          if (back.has(other)) continue;
          back.set(other, { prev: node, edge });
          if (other === to) {
            const path = [to];
            const edges: GraphEdge[] = [];
            for (let step = back.get(to); step; step = back.get(step.prev)) {
              path.unshift(step.prev);
              edges.unshift(step.edge);
            }
            return { nodes: path, edges, path, truncatedBy: run.truncatedBy() };
          }
          next.push(other);
        }
        if (run.stopped) return { nodes: [], edges: [], path: null, truncatedBy: run.truncatedBy() };
      }
      ring = next;
    }
    if (ring.length > 0) run.hit('max_depth');
    return { nodes: [], edges: [], path: null, truncatedBy: run.truncatedBy() };
  }

  /** Uncapped breadth-first distances from `from` (the ground truth when nothing was cut). */
  distances(from: string): Map<string, number> {
    const distance = new Map([[from, 0]]);
    const queue = [from];
    while (queue.length > 0) {
      const node = queue.shift()!;
      for (const { node: other } of this.adjacency.get(node)!) {
        if (!distance.has(other)) {
          distance.set(other, distance.get(node)! + 1);
          queue.push(other);
        }
      }
    }
    return distance;
  }

  sharedContext(a: string, b: string, limit: number, bounds: GraphBounds): { threads: { thread: string; a: number; b: number }[]; truncatedBy: Truncation[] } {
    const threadsOf = (did: string) => new Map(this.adjacency.get(`actor:${did}`)!.filter((n) => n.edge.kind === 'wrote_in').map((n) => [n.node.slice(7), n.edge.count!]));
    const ta = threadsOf(a);
    const tb = threadsOf(b);
    const truncatedBy: Truncation[] = [];
    // The smaller list is walked, one examined edge per entry (the larger first on a tie is never walked).
    const walked = [...(ta.size <= tb.size ? ta : tb).keys()];
    if (walked.length > bounds.maxEdges) truncatedBy.push('max_edges');
    const shared = walked
      .slice(0, bounds.maxEdges)
      .filter((t) => ta.has(t) && tb.has(t))
      .map((thread) => ({ thread, a: ta.get(thread)!, b: tb.get(thread)! }))
      .sort((x, y) => y.a + y.b - (x.a + x.b) || (x.thread < y.thread ? -1 : 1));
    if (shared.length > limit) truncatedBy.unshift('limit');
    return { threads: shared.slice(0, limit), truncatedBy };
  }

  centrality(kind: 'actor' | 'thread', limit: number): { ranking: { id: string; degree: number; records: number }[]; truncated: boolean } {
    const all = [...this.adjacency.keys()]
      .filter((id) => id.startsWith(`${kind}:`))
      .map((id) => {
        const key = id.slice(kind.length + 1);
        const degree = this.adjacency.get(id)!.filter((n) => n.edge.kind === 'wrote_in').length;
        const records = this.records.filter((r) => (kind === 'actor' ? r.record.actor : r.record.thread) === key).length;
        return { id, degree, records };
      })
      .sort((x, y) => y.degree - x.degree || y.records - x.records || (x.id < y.id ? -1 : 1));
    return { ranking: all.slice(0, limit), truncated: all.length > limit };
  }

  facets(limit: number) {
    const rank = <T extends { n: number; key: string }>(rows: T[]) => rows.sort((x, y) => y.n - x.n || (x.key < y.key ? -1 : 1));
    const kinds = new Map<string, number>();
    for (const { record } of this.records) {
      const kind = record.body['kind'];
      if (typeof kind === 'string' && kind.length > 0) kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const actors = [...this.adjacency.keys()].filter((id) => id.startsWith('actor:')).map((id) => id.slice(6));
    const threads = [...this.adjacency.keys()].filter((id) => id.startsWith('thread:')).map((id) => id.slice(7));
    const kindRows = rank([...kinds].map(([key, n]) => ({ key, n })));
    const actorRows = rank(actors.map((key) => ({ key, n: this.records.filter((r) => r.record.actor === key).length })));
    const threadRows = rank(threads.map((key) => ({ key, n: this.records.filter((r) => r.record.thread === key).length })));
    return {
      kinds: kindRows.slice(0, limit).map((r) => ({ kind: r.key, records: r.n })),
      actors: actorRows.slice(0, limit).map((r) => r.key),
      threads: threadRows.slice(0, limit).map((r) => r.key),
      totals: { records: this.records.length, kinds: kinds.size, actors: actors.length, threads: threads.length },
      truncated: kindRows.length > limit || actorRows.length > limit || threadRows.length > limit,
    };
  }
}

/** The bounds, applied exactly as the query budget applies them. */
class Run {
  expanded = 0;
  examined = 0;
  stopped = false;
  private readonly hits = new Set<Truncation>();

  constructor(private readonly bounds: GraphBounds) {}

  expand(): boolean {
    if (this.expanded === this.bounds.maxExpanded) {
      this.hit('max_expanded');
      this.stopped = true;
      return false;
    }
    this.expanded++;
    return true;
  }

  /** The first max_fanout neighbours, stopping when the edge budget runs out. */
  *take(neighbors: readonly RefNeighbor[]): Generator<RefNeighbor> {
    for (let i = 0; i < neighbors.length; i++) {
      if (i === this.bounds.maxFanout) {
        this.hit('fanout');
        return;
      }
      if (this.examined === this.bounds.maxEdges) {
        this.hit('max_edges');
        this.stopped = true;
        return;
      }
      this.examined++;
      yield neighbors[i]!;
    }
  }

  hit(reason: Truncation): void {
    this.hits.add(reason);
  }

  truncatedBy(): Truncation[] {
    return (['limit', 'fanout', 'max_expanded', 'max_edges', 'max_depth'] as const).filter((t) => this.hits.has(t));
  }
}
