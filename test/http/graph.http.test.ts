/**
 * GET /v1/graph/query and /v1/graph/facets over loopback HTTP, on both
 * drivers: the answers on a small log that crosses two threads, every
 * refusal (400 naming the parameter, 404 for an unknown node, 401 without a
 * credential), and visibility: a credential limited to thread A never sees
 * thread B, its records, its only writer or its body kinds, in facets or in
 * any operation (not even in a label), while a coarse reader sees both. The
 * answers are the same after a restart.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:user:bob';
const CAROL = 'did:sync:agent:carol';
const EVE = 'did:sync:user:eve';

for (const storage of ['sqlite', 'level'] as const) {
  describe(`graph: queries, facets, refusals and visibility over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let server: StartedServer;
    let url: string;
    let dataDir: string;
    let admin: Credential;
    let threadReader: Credential;
    let reader: Credential;
    const A = newThread('graph-a');
    const B = newThread('graph-b');
    const ids: Record<string, string> = {};

    const write = async (name: string, fields: Record<string, unknown>) => {
      const answer = await request(url, 'POST', '/v1/records', { json: { data_type: 'SCALAR', parents: [], body: {}, ...fields }, headers: bearer(admin) });
      expect(answer.status, answer.text).to.equal(201);
      ids[name] = answer.json.id;
    };
    const graph = (query: string, who: Credential) => get(url, `/v1/graph/query?${query}`, bearer(who));
    const ok = async (query: string, who: Credential): Promise<any> => {
      const answer = await graph(query, who);
      expect(answer.status, `${query}: ${answer.text}`).to.equal(200);
      return answer.json;
    };
    /** Nothing of thread B reaches a thread-A reader: not its id, records, only writer, kind or label. */
    const expectNothingOfB = (answer: HttpAnswer, what: string) => {
      for (const secret of [B, ids['b1']!, ids['b2']!, ids['b3']!, EVE, 'secret']) expect(answer.text, `${what} mentions ${secret}`).not.to.include(secret);
    };
    const nodeIds = (answer: any): string[] => answer.nodes.map((n: any) => n.id);

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'loom-graph-'));
      server = await startServer({ storage, dataDir, keepDataDir: true, auth: { required: true } });
      url = server.url;
      admin = await bootstrapAdmin(url);
      await write('a1', { thread: A, actor: ALICE, act: 'INTEND', clock: 0, body: { task: true, goal: 'ship the graph', assigned_to: BOB, kind: 'core.task.v1' } });
      await write('a2', { thread: A, actor: BOB, act: 'DO', clock: 0, parents: [ids['a1']] });
      await write('b1', { thread: B, actor: EVE, act: 'INTEND', clock: 0, body: { goal: 'secret plan', kind: 'secret.kind.v1' } });
      await write('b2', { thread: B, actor: ALICE, act: 'DO', clock: 0 });
      // A verdict on A whose parents cross into B, and a record on B fulfilling one on A.
      await write('a3', { thread: A, actor: CAROL, act: 'KNOW', clock: 0, parents: [ids['a2']!, ids['b1']!].sort(), judged_by: ids['a2'], body: { fulfills: ids['a2'], verdict: 'accept', kind: 'core.verdict.v1' } });
      await write('b3', { thread: B, actor: EVE, act: 'KNOW', clock: 1, body: { fulfills: ids['a1'], topic: 'secret' } });
      threadReader = await createAccount(url, admin, 'thread A reader', [`thread:${A}:read`]);
      reader = await createAccount(url, admin, 'reader', ['records:read']);
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    it('facets: the kinds, actors and threads of the log, system threads left out', async () => {
      const facets = (await get(url, '/v1/graph/facets', bearer(admin))).json;
      expect(facets).to.include({ object: 'graph_facets', restricted: false, limit: 100, truncated: false });
      expect(facets.watermark).to.be.above(0);
      expect(facets.totals).to.deep.equal({ records: 6, kinds: 3, actors: 4, threads: 2 });
      expect(facets.threads.map((t: any) => [t.thread, t.label, t.records, t.actors])).to.have.deep.members([
        [A, 'ship the graph', 3, 3],
        [B, 'secret plan', 3, 2],
      ]);
      expect(facets.actors.map((a: any) => [a.did, a.records, a.threads, a.assigned])).to.deep.equal([
        [ALICE, 2, 2, 0],
        [EVE, 2, 1, 0],
        [CAROL, 1, 1, 0],
        [BOB, 1, 1, 1],
      ]);
      expect(facets.kinds).to.deep.equal([
        { kind: 'core.task.v1', records: 1 },
        { kind: 'core.verdict.v1', records: 1 },
        { kind: 'secret.kind.v1', records: 1 },
      ]);
      const cut = (await get(url, '/v1/graph/facets?limit=1', bearer(admin))).json;
      expect(cut).to.include({ truncated: true, limit: 1 });
      expect(cut.actors).to.have.length(1);
    });

    it('a thread-grained credential sees only its thread in facets and in the graph fold', async () => {
      const answer = await get(url, '/v1/graph/facets', bearer(threadReader));
      expect(answer.status, answer.text).to.equal(200);
      expectNothingOfB(answer, 'facets');
      expect(answer.json.restricted).to.equal(true);
      expect(answer.json.threads.map((t: any) => t.thread)).to.deep.equal([A]);
      expect(answer.json.actors.map((a: any) => a.did)).to.have.members([ALICE, BOB, CAROL]);
      expect(answer.json.totals).to.deep.equal({ records: 3, kinds: 2, actors: 3, threads: 1 });
      const fold = await get(url, '/v1/folds/graph', bearer(threadReader));
      expect(fold.status, fold.text).to.equal(200);
      expect(fold.json.value).to.include({ records: 3, threads: 1, actors: 3 });
      // A coarse reader is served the whole graph.
      expect((await get(url, '/v1/graph/facets', bearer(reader))).json).to.deep.include({ restricted: false, totals: { records: 6, kinds: 3, actors: 4, threads: 2 } });
    });

    it('op=neighborhood: k hops breadth first; the thread reader gets the same start without anything of B', async () => {
      const whole = await ok(`op=neighborhood&node=${ALICE}&k=1`, admin);
      expect(whole).to.include({ object: 'graph_query', op: 'neighborhood', restricted: false, truncated: false });
      expect(nodeIds(whole)).to.deep.equal([`actor:${ALICE}`, `thread:${A}`, `thread:${B}`, `record:${ids['a1']}`, `record:${ids['b2']}`]);
      expect(whole.nodes.map((n: any) => n.depth)).to.deep.equal([0, 1, 1, 1, 1]);
      expect(whole.edges).to.deep.include({ from: `actor:${ALICE}`, to: `thread:${A}`, kind: 'wrote_in', count: 1 });
      expect(whole.bounds).to.include({ k: 1, limit: 100, max_depth: 6, max_fanout: 1000, max_expanded: 10_000, max_edges: 100_000 });
      const deep = await ok(`op=neighborhood&node=actor:${ALICE}&k=3&limit=1000`, admin);
      expect(nodeIds(deep)).to.include.members([`thread:${B}`, `actor:${EVE}`, `record:${ids['b3']}`]);
      for (const node of [`actor:${ALICE}`, `record:${ids['a1']}`, `record:${ids['a3']}`, `thread:${A}`]) {
        const answer = await graph(`op=neighborhood&node=${encodeURIComponent(node)}&k=3&limit=1000`, threadReader);
        expect(answer.status, answer.text).to.equal(200);
        expectNothingOfB(answer, `neighborhood of ${node}`);
        expect(answer.json.restricted).to.equal(true);
      }
      const a3 = await ok(`op=neighborhood&node=${ids['a3']}&k=1`, threadReader);
      expect(a3.edges.map((e: any) => `${e.kind} ${e.to}`)).to.deep.equal([`in_thread thread:${A}`, `authored record:${ids['a3']}`, `parent record:${ids['a2']}`, `fulfills record:${ids['a2']}`, `judged_by record:${ids['a2']}`]);
      expect(a3.nodes.find((n: any) => n.id === `record:${ids['a3']}`).label).to.equal('KNOW core.verdict.v1: accept');
      const limited = await ok(`op=neighborhood&node=${ALICE}&k=2&limit=2`, admin);
      expect(limited).to.deep.include({ truncated: true, truncated_by: ['limit'] });
      expect(limited.nodes).to.have.length(2);
    });

    it('op=path: a shortest path for the whole reader; nodes of B are 404 to the thread reader', async () => {
      const path = await ok(`op=path&from=${ALICE}&to=actor:${EVE}`, admin);
      expect(path.path).to.deep.equal([`actor:${ALICE}`, `thread:${B}`, `actor:${EVE}`]);
      expect(path.edges).to.deep.equal([
        { from: `actor:${ALICE}`, to: `thread:${B}`, kind: 'wrote_in', count: 1 },
        { from: `actor:${EVE}`, to: `thread:${B}`, kind: 'wrote_in', count: 2 },
      ]);
      expect(path.bounds).to.not.have.property('limit');
      const inside = await graph(`op=path&from=${ids['a3']}&to=${BOB}`, threadReader);
      expect(inside.json.path).to.deep.equal([`record:${ids['a3']}`, `thread:${A}`, `actor:${BOB}`]);
      expectNothingOfB(inside, 'path inside A');
      expectEnvelope(await graph(`op=path&from=${ALICE}&to=${EVE}`, threadReader), 404, 'NOT_FOUND');
      expectEnvelope(await graph(`op=path&from=${ids['b1']}&to=${ALICE}`, threadReader), 404, 'NOT_FOUND');
      expectEnvelope(await graph(`op=path&from=${ALICE}&to=thread:${B}`, threadReader), 404, 'NOT_FOUND');
      expectEnvelope(await graph(`op=neighborhood&node=${B}`, threadReader), 404, 'NOT_FOUND');
    });

    it('op=shared_context and op=centrality, whole and within the grain', async () => {
      const shared = await ok(`op=shared_context&a=${ALICE}&b=${EVE}`, admin);
      expect(nodeIds(shared)).to.deep.equal([`actor:${ALICE}`, `actor:${EVE}`, `thread:${B}`]);
      expect((await ok(`op=shared_context&a=${ALICE}&b=${BOB}`, threadReader)).nodes.map((n: any) => n.label)).to.deep.equal([ALICE, BOB, 'ship the graph']);
      expectEnvelope(await graph(`op=shared_context&a=${ALICE}&b=${EVE}`, threadReader), 404, 'NOT_FOUND');
      const central = await ok('op=centrality', admin);
      expect(central.ranking[0]).to.deep.equal({ id: `actor:${ALICE}`, degree: 2, records: 2 });
      const threads = await ok('op=centrality&kind=thread&limit=1', admin);
      expect(threads.ranking).to.deep.equal([{ id: `thread:${A}`, degree: 3, records: 3 }]);
      expect(threads).to.deep.include({ truncated: true, truncated_by: ['limit'] });
      for (const query of ['op=centrality', 'op=centrality&kind=thread']) {
        const answer = await graph(query, threadReader);
        expect(answer.status).to.equal(200);
        expectNothingOfB(answer, query);
      }
    });

    it('refuses malformed and unbounded queries with 400 naming the parameter, unknown nodes with 404, anonymous callers with 401', async () => {
      const refused: [string, string][] = [
        ['', 'op'],
        ['op=pagerank', 'op'],
        [`op=neighborhood&node=${ALICE}&k=4`, 'k'],
        [`op=neighborhood&node=${ALICE}&k=two`, 'k'],
        [`op=neighborhood&node=${ALICE}&limit=5000`, 'limit'],
        ['op=neighborhood', 'node'],
        ['op=neighborhood&node=alice', 'node'],
        [`op=path&from=${ALICE}`, 'to'],
        [`op=path&from=${ALICE}&to=${BOB}&k=2`, 'k'],
        [`op=shared_context&a=${ALICE}&b=${A}`, 'b'],
        ['op=centrality&kind=record', 'kind'],
        ['op=centrality&depth=9', 'depth'],
      ];
      for (const [query, parameter] of refused) {
        const answer = await graph(query, admin);
        expectEnvelope(answer, 400, 'INVALID_SHAPE', query);
        expect(answer.json.message, query).to.include(parameter);
      }
      expectEnvelope(await get(url, '/v1/graph/facets?limit=0', bearer(admin)), 400, 'INVALID_SHAPE');
      expectEnvelope(await graph(`op=neighborhood&node=${'e'.repeat(64)}`, admin), 404, 'NOT_FOUND');
      expectEnvelope(await graph('op=neighborhood&node=did:sync:user:nobody', admin), 404, 'NOT_FOUND');
      expectEnvelope(await graph(`op=neighborhood&node=th_${'0'.repeat(64)}`, admin), 404, 'NOT_FOUND');
      expectEnvelope(await graph('op=neighborhood&node=th_engine_config', admin), 404, 'NOT_FOUND');
      expectEnvelope(await get(url, '/v1/graph/query?op=centrality'), 401, 'AUTH_REQUIRED');
      expectEnvelope(await get(url, '/v1/graph/facets'), 401, 'AUTH_REQUIRED');
    });

    it('answers the same after a restart (the fold rebuilt or resumed from its checkpoint)', async () => {
      const queries = [`op=neighborhood&node=${ALICE}&k=2&limit=1000`, `op=path&from=${ids['a3']}&to=${EVE}`, 'op=centrality&kind=thread'];
      const before = await Promise.all(queries.map((q) => ok(q, admin)));
      const facetsBefore = (await get(url, '/v1/graph/facets', bearer(threadReader))).json;
      await server.stop();
      server = await startServer({ storage, dataDir, auth: { required: true } });
      url = server.url;
      expect(await Promise.all(queries.map((q) => ok(q, admin)))).to.deep.equal(before);
      expect((await get(url, '/v1/graph/facets', bearer(threadReader))).json).to.deep.equal(facetsBefore);
    });
  });
}
