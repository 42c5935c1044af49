/**
 * Every graph operation, on many random small logs, equals the brute-force
 * reference (test/helpers/reference-graph.ts): as the whole log's reader and as
 * readers limited to some threads or to some records, under default and
 * tiny bounds (so limits, fan-out caps, the expansion and edge budgets and
 * the depth cap are all hit), with pages cut short at random.
 */
import { expect } from 'chai';
import { Compile } from 'typebox/compile';
import { LoomError } from '../../core/errors/loom-error.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { DEFAULT_GRAPH_BOUNDS, type GraphBounds } from './config.js';
import { GraphFacetsSchema, GraphQueryAnswerSchema, type GraphQueryAnswer } from './graph-answer.js';
import type { GraphQuery } from './graph-query-params.js';
import { GraphView } from './graph-view.js';
import { parseNodeId } from './node-id.js';
import { runGraphQuery } from './run-graph-query.js';
import { foldState, memoryReads, randomGraph, type RandomGraph } from '../../test/helpers/random-graph.js';
import { ReferenceGraph } from '../../test/helpers/reference-graph.js';
import { facets } from './facets.js';
import { clip } from './graph-state.js';
import { LABEL_MAX } from './graph-fold.js';

const SEEDS = 250;

interface Case {
  seed: number;
  graph: RandomGraph;
  visible: (stored: StoredRecord) => boolean;
  visibleThreads: Set<string> | null;
  bounds: GraphBounds;
  view: () => GraphView;
  ref: ReferenceGraph;
  pick<T>(items: readonly T[]): T;
  /** Node ids to query: the reference's nodes plus unknown and invisible ones. */
  candidates: string[];
}

function makeCase(seed: number): Case {
  const graph = randomGraph(seed);
  const { rng } = graph;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  // A third see everything, a third some threads (a thread grain), a third some records (as a namespace grain).
  const mode = seed % 3;
  const visibleThreads = mode === 1 ? new Set(graph.threads.filter(() => rng() < 0.5)) : null;
  const hiddenClock = Math.floor(rng() * 3) + 2;
  const visible =
    mode === 0 ? () => true : mode === 1 ? (s: StoredRecord) => visibleThreads!.has(s.record.thread) : (s: StoredRecord) => s.record.clock % hiddenClock !== 0;
  const tiny = rng() < 0.5;
  const bounds: GraphBounds = tiny
    ? { maxFanout: 1 + Math.floor(rng() * 4), maxExpanded: 1 + Math.floor(rng() * 8), maxEdges: 1 + Math.floor(rng() * 30), maxDepth: 1 + Math.floor(rng() * 4) }
    : DEFAULT_GRAPH_BOUNDS;
  const pageCap = rng() < 0.5 ? 1 + Math.floor(rng() * 3) : 1000;
  const state = foldState(graph.records, visible);
  const ref = new ReferenceGraph(graph.records, visible);
  const candidates = [
    ...ref.adjacency.keys(),
    'actor:did:sync:user:nobody',
    `thread:th_${'0'.repeat(64)}`,
    `record:${'f'.repeat(64)}`,
    ...graph.records.map((r) => `record:${r.record.id}`),
    ...graph.threads.map((t) => `thread:${t}`),
  ];
  return { seed, graph, visible, visibleThreads, bounds, view: () => new GraphView(state, memoryReads(graph.records, visible, pageCap)), ref, pick, candidates };
}

const ref = (id: string) => parseNodeId(id)!;
const answerShape = Compile(GraphQueryAnswerSchema);
const facetsShape = Compile(GraphFacetsSchema);

async function run(c: Case, query: GraphQuery): Promise<GraphQueryAnswer | 'NOT_FOUND'> {
  try {
    const answer = await runGraphQuery(c.view(), query, c.bounds, { watermark: 7, restricted: false });
    // Every answer is what the route declares (the server does not check responses).
    expect(answerShape.Check(answer), JSON.stringify(answerShape.Errors(answer)[0])).to.equal(true);
    return answer;
  } catch (error) {
    if (error instanceof LoomError && error.code === 'NOT_FOUND') return 'NOT_FOUND';
    throw error;
  }
}

/** Nothing in an answer names a thread or record the reader cannot see. */
function expectOnlyVisible(c: Case, answer: GraphQueryAnswer): void {
  const ids = [...answer.nodes.map((n) => n.id), ...answer.edges.flatMap((e) => [e.from, e.to])];
  for (const id of ids) {
    if (id.startsWith('thread:') && c.visibleThreads) expect(c.visibleThreads.has(id.slice(7)), `seed ${c.seed}: ${id}`).to.equal(true);
    if (id.startsWith('record:')) expect(c.ref.has(id), `seed ${c.seed}: ${id} is no visible record`).to.equal(true);
  }
}

/** Thread labels from the records themselves: the goal (else title) of the first visible INTEND that has one. */
function expectedThreadLabel(c: Case, thread: string): string {
  for (const { record } of c.ref.records) {
    if (record.thread !== thread || record.act !== 'INTEND') continue;
    const text = [record.body['goal'], record.body['title']].find((t): t is string => typeof t === 'string' && t.trim().length > 0);
    if (text) return clip(text, LABEL_MAX);
  }
  return thread;
}

function expectLabels(c: Case, answer: GraphQueryAnswer): void {
  for (const node of answer.nodes) {
    if (node.kind === 'actor') expect(node.label).to.equal(node.id.slice(6));
    if (node.kind === 'thread') expect(node.label, `seed ${c.seed}`).to.equal(expectedThreadLabel(c, node.id.slice(7)));
    if (node.kind === 'record') expect(node.label).to.match(/^(INTEND|DO|KNOW|LEARN)\b/);
  }
}

describe('graph queries: every operation equals the brute-force reference on random logs', function () {
  this.timeout(60_000);
  const cases = Array.from({ length: SEEDS }, (_, i) => makeCase(i + 1));

  it('op=neighborhood: the same nodes, depths, edges and truncation', async () => {
    let truncated = 0;
    let full = 0;
    for (const c of cases) {
      for (let q = 0; q < 4; q++) {
        const start = c.pick(c.candidates);
        const k = 1 + Math.floor(c.graph.rng() * 3);
        const limit = c.pick([1, 2, 5, 100]);
        const answer = await run(c, { op: 'neighborhood', node: ref(start), k, limit });
        if (!c.ref.has(start)) {
          expect(answer, `seed ${c.seed}: ${start}`).to.equal('NOT_FOUND');
          continue;
        }
        if (answer === 'NOT_FOUND') throw new Error(`seed ${c.seed}: ${start} not found`);
        const expected = c.ref.neighborhood(start, k, limit, c.bounds);
        const label = `seed ${c.seed} node ${start} k ${k} limit ${limit}`;
        expect(answer.nodes.map((n) => n.id), label).to.deep.equal(expected.nodes);
        expect(answer.nodes.map((n) => n.depth), label).to.deep.equal(expected.depths);
        expect(answer.edges, label).to.deep.equal(expected.edges);
        expect(answer.truncated_by, label).to.deep.equal(expected.truncatedBy);
        expect(answer.truncated, label).to.equal(expected.truncatedBy.length > 0);
        expect(answer.nodes.length, label).to.be.at.most(limit);
        expect(answer.bounds).to.include({ k, limit, max_fanout: c.bounds.maxFanout });
        expectOnlyVisible(c, answer);
        expectLabels(c, answer);
        if (answer.truncated) truncated++;
        else {
          full++;
          // Uncut, the answer is exactly the nodes within k hops, at their true distance.
          const distance = c.ref.distances(start);
          const within = [...distance].filter(([, d]) => d <= k).map(([id]) => id);
          expect(new Set(answer.nodes.map((n) => n.id)), label).to.deep.equal(new Set(within));
          for (const node of answer.nodes) expect(node.depth, `${label} ${node.id}`).to.equal(distance.get(node.id));
        }
      }
    }
    // The generator and bounds exercise both outcomes.
    expect(truncated).to.be.above(50);
    expect(full).to.be.above(50);
  });

  it('op=path: the same path and edges; uncut, a shortest one (or none within max_depth)', async () => {
    let found = 0;
    let none = 0;
    for (const c of cases) {
      for (let q = 0; q < 6; q++) {
        const from = c.pick(c.candidates);
        const to = c.pick(c.candidates);
        const answer = await run(c, { op: 'path', from: ref(from), to: ref(to) });
        if (!c.ref.has(from) || !c.ref.has(to)) {
          expect(answer, `seed ${c.seed}`).to.equal('NOT_FOUND');
          continue;
        }
        if (answer === 'NOT_FOUND') throw new Error(`seed ${c.seed}: not found`);
        const expected = c.ref.path(from, to, c.bounds);
        const label = `seed ${c.seed} path ${from} → ${to}`;
        expect(answer.path, label).to.deep.equal(expected.path);
        expect(answer.nodes.map((n) => n.id), label).to.deep.equal(expected.nodes);
        expect(answer.edges, label).to.deep.equal(expected.edges);
        expect(answer.truncated_by, label).to.deep.equal(expected.truncatedBy);
        expectOnlyVisible(c, answer);
        if (answer.path) {
          found++;
          // Each step is an edge of the graph between consecutive nodes.
          answer.path.slice(1).forEach((id, i) => {
            const edge = answer.edges[i]!;
            expect([edge.from, edge.to].sort(), label).to.deep.equal([answer.path![i], id].sort());
            expect(c.ref.adjacency.get(answer.path![i]!)!.some((n) => n.node === id && n.edge.kind === edge.kind), label).to.equal(true);
          });
        } else none++;
        if (!answer.truncated) {
          const distance = c.ref.distances(from).get(to);
          if (answer.path) expect(answer.path.length - 1, label).to.equal(distance);
          else expect(distance === undefined || distance > c.bounds.maxDepth, label).to.equal(true);
        }
      }
    }
    expect(found).to.be.above(100);
    expect(none).to.be.above(20);
  });

  it('op=shared_context: the threads both actors wrote on, ranked, with both counts', async () => {
    let nonEmpty = 0;
    for (const c of cases) {
      const actors = [...c.graph.actors, c.graph.assigneeOnly, 'did:sync:user:nobody'];
      for (let q = 0; q < 4; q++) {
        const a = c.pick(actors);
        const b = c.pick(actors);
        const limit = c.pick([1, 2, 100]);
        const answer = await run(c, { op: 'shared_context', a, b, limit });
        if (!c.ref.has(`actor:${a}`) || !c.ref.has(`actor:${b}`)) {
          expect(answer).to.equal('NOT_FOUND');
          continue;
        }
        if (answer === 'NOT_FOUND') throw new Error(`seed ${c.seed}: not found`);
        const expected = c.ref.sharedContext(a, b, limit, c.bounds);
        const label = `seed ${c.seed} ${a} ${b}`;
        const actorNodes = a === b ? [`actor:${a}`] : [`actor:${a}`, `actor:${b}`];
        expect(answer.nodes.map((n) => n.id), label).to.deep.equal([...actorNodes, ...expected.threads.map((t) => `thread:${t.thread}`)]);
        const edges = expected.threads.flatMap((t) => [
          { from: `actor:${a}`, to: `thread:${t.thread}`, kind: 'wrote_in', count: t.a },
          ...(a === b ? [] : [{ from: `actor:${b}`, to: `thread:${t.thread}`, kind: 'wrote_in', count: t.b }]),
        ]);
        expect(answer.edges, label).to.deep.equal(edges);
        expect(answer.truncated_by, label).to.deep.equal(expected.truncatedBy);
        expectOnlyVisible(c, answer);
        expectLabels(c, answer);
        if (expected.threads.length > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).to.be.above(100);
  });

  it('op=centrality: actors and threads ranked by degree, then records, then id', async () => {
    for (const c of cases) {
      for (const kind of ['actor', 'thread'] as const) {
        const limit = c.pick([1, 3, 100]);
        const answer = await run(c, { op: 'centrality', kind, limit });
        if (answer === 'NOT_FOUND') throw new Error('centrality names no node');
        const expected = c.ref.centrality(kind, limit);
        expect(answer.ranking, `seed ${c.seed} ${kind}`).to.deep.equal(expected.ranking);
        expect(answer.nodes.map((n) => n.id)).to.deep.equal(expected.ranking.map((r) => r.id));
        expect(answer.truncated_by).to.deep.equal(expected.truncated ? ['limit'] : []);
        expectOnlyVisible(c, answer);
        expectLabels(c, answer);
      }
    }
  });

  it('facets: kinds, actors and threads with their counts, ranked and cut at limit', () => {
    for (const c of cases) {
      const limit = c.pick([1, 2, 100]);
      const got = facets(foldState(c.graph.records, c.visible), limit);
      expect(facetsShape.Check({ object: 'graph_facets', watermark: 0, restricted: true, ...got })).to.equal(true);
      const expected = c.ref.facets(limit);
      const label = `seed ${c.seed}`;
      expect(got.kinds, label).to.deep.equal(expected.kinds);
      expect(got.actors.map((a) => a.did), label).to.deep.equal(expected.actors);
      expect(got.threads.map((t) => t.thread), label).to.deep.equal(expected.threads);
      expect(got.totals, label).to.deep.equal(expected.totals);
      expect(got.truncated, label).to.equal(expected.truncated);
      for (const t of got.threads) {
        if (c.visibleThreads) expect(c.visibleThreads.has(t.thread)).to.equal(true);
        expect(t.label).to.equal(expectedThreadLabel(c, t.thread));
      }
    }
  });
});

describe('graph queries: the reverse index keyed by id prefix', () => {
  it('never gives a record the fulfillers or judges of another whose id shares its prefix', async () => {
    const thread = `th_${'2'.repeat(64)}`;
    const prefix = 'abcdef0123456';
    const [x1, x2, r1, r2] = ['1', '2', '3', '4'].map((d) => prefix + d.repeat(51));
    const make = (sequence: number, id: string, body: Record<string, unknown>, judgedBy: string | null = null): StoredRecord => ({
      sequence,
      createdAt: 0,
      record: { id: id!, parents: [], thread, actor: 'did:sync:user:a', act: 'KNOW', body: body as never, clock: sequence, data_type: 'SCALAR', judged_by: judgedBy },
    });
    const records = [make(1, x1!, {}), make(2, x2!, {}), make(3, r1!, { fulfills: x1 }, x1!), make(4, r2!, { fulfills: x2 })];
    const view = new GraphView(foldState(records), memoryReads(records));
    const reverse = async (target: string) => {
      const answer = await runGraphQuery(view, { op: 'neighborhood', node: { kind: 'record', key: target }, k: 1, limit: 100 }, DEFAULT_GRAPH_BOUNDS, { watermark: 4, restricted: false });
      return answer.edges.filter((e) => e.to === `record:${target}` && e.from.startsWith('record:')).map((e) => `${e.kind} ${e.from.slice(7, 21)}`);
    };
    expect(await reverse(x1!)).to.deep.equal([`fulfills ${r1!.slice(0, 14)}`, `judged_by ${r1!.slice(0, 14)}`]);
    expect(await reverse(x2!)).to.deep.equal([`fulfills ${r2!.slice(0, 14)}`]);
  });
});

describe('graph queries: bounded work', () => {
  it('a neighbourhood reads records in proportion to its limit, not to the log', async () => {
    // One thread of 5,000 records by one actor: a k=2 neighbourhood of the actor still reads about a page.
    const thread = `th_${'1'.repeat(64)}`;
    const records: StoredRecord[] = Array.from({ length: 5000 }, (_, i) => ({
      sequence: i + 1,
      createdAt: 0,
      record: { id: i.toString(16).padStart(64, '0'), parents: [], thread, actor: 'did:sync:user:busy', act: 'DO', body: {}, clock: i, data_type: 'SCALAR', judged_by: null },
    }));
    const reads = memoryReads(records);
    const answer = await runGraphQuery(new GraphView(foldState(records), reads), { op: 'neighborhood', node: ref('actor:did:sync:user:busy'), k: 2, limit: 50 }, DEFAULT_GRAPH_BOUNDS, { watermark: 5000, restricted: false });
    expect(answer.nodes).to.have.length(50);
    expect(answer.truncated_by).to.deep.equal(['limit']);
    expect(reads.reads).to.be.at.most(3);
    expect(answer.work.expanded).to.equal(1);
  });

  it('a path search stops at max_expanded and says so', async () => {
    const bounds = { ...DEFAULT_GRAPH_BOUNDS, maxExpanded: 1 };
    let checked = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const c = makeCase(seed);
      for (const from of c.ref.adjacency.keys()) {
        const far = [...c.ref.distances(from)].find(([, d]) => d >= 2);
        if (!far) continue;
        const answer = await runGraphQuery(c.view(), { op: 'path', from: ref(from), to: ref(far[0]) }, bounds, { watermark: 0, restricted: false });
        expect(answer.path).to.equal(null);
        expect(answer.truncated_by).to.deep.equal(['max_expanded']);
        expect(answer.work.expanded).to.equal(1);
        checked++;
        break;
      }
    }
    expect(checked).to.be.above(10);
  });
});
