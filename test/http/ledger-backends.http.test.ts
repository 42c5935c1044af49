/**
 * Both drivers serve one API: the ingest, get, query and threads subset runs
 * against SQLite and LevelDB over loopback HTTP, and one script of requests
 * sent to both must get identical statuses and bodies.
 */
import { expect } from 'chai';
import {
  collectPages,
  expectEnvelope,
  get,
  newThread,
  postJson,
  recordInput,
  startServer,
  type HttpAnswer,
  type RecordInput,
  type StartedServer,
  postRecord,
} from '../helpers/http-server.js';

const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:agent:bob';

const ingest = postRecord;

/** Ingest, get, query and threads: the subset both drivers must serve identically. */
for (const storage of ['sqlite', 'level'] as const) {
  describe(`ledger over HTTP: the shared subset (${storage})`, function () {
    let server: StartedServer;
    let url: string;
    const thread = newThread();
    const ids: string[] = [];

    before(async () => {
      server = await startServer({ storage });
      url = server.url;
      const records = [
        recordInput({ thread, act: 'INTEND', body: { goal: 'compare backends', priority: 2 } }),
        recordInput({ thread, actor: BOB, act: 'DO', body: { tool: 'grep', priority: 1 } }),
        recordInput({ thread, act: 'KNOW', clock: 1, body: { observation: 'same', priority: 3 } }),
      ];
      for (const input of records) ids.push((await ingest(url, input)).json.id);
    });
    after(() => server?.stop());

    it('reports its backend in the capabilities manifest', async () => {
      const manifest = (await get(url, '/v1/capabilities')).json;
      expect(manifest.store_backend).to.equal(storage);
      expect(manifest.store_backends).to.include(storage);
    });

    it('ingests: 201, then 200 for a resend, 409 for a taken clock, 400 for a bad shape', async () => {
      const input = recordInput({ body: { backend: 'any' } });
      expect((await ingest(url, input)).status).to.equal(201);
      expect((await ingest(url, input)).status).to.equal(200);
      expectEnvelope(await ingest(url, { ...input, body: {} }), 409, 'DUPLICATE_CLOCK');
      expectEnvelope(await ingest(url, { ...input, clock: -1 }), 400, 'INVALID_SHAPE');
    });

    it('gets by id and answers 404 for an unknown id', async () => {
      const fetched = await get(url, `/v1/records/${ids[1]}`);
      expect(fetched.json.id).to.equal(ids[1]);
      expect(fetched.json.actor).to.equal(BOB);
      expectEnvelope(await get(url, `/v1/records/${'0'.repeat(64)}`), 404, 'NOT_FOUND');
    });

    it('lists a thread in log order', async () => {
      const { items } = await collectPages(url, `/v1/records?thread=${thread}`, 2);
      expect(items.map((r) => r.id)).to.deep.equal(ids);
    });

    it('queries with a filter, a sort and explain', async () => {
      const answer = await postJson(url, '/v1/records/query', { thread, filter: { 'body.priority': { $gte: 2 } }, sort: { 'body.priority': -1 }, explain: true });
      expect(answer.status).to.equal(200);
      expect(answer.json.data.map((r: any) => r.id)).to.deep.equal([ids[2], ids[0]]);
      expect(answer.json.matched_total).to.equal(2);
      expect(answer.json.capped).to.equal(false);
      expect(answer.json.plan.sql).to.be.a('string');
      expectEnvelope(await postJson(url, '/v1/records/query', { filter: { clock: 'x' } }), 400, 'INVALID_QUERY');
    });

    it('lists the thread with its summary', async () => {
      const { items } = await collectPages(url, '/v1/threads', 1);
      const summary = items.find((t) => t.thread === thread);
      expect(summary).to.deep.include({ object: 'thread', record_count: 3, last_clock: 1, status: 'open', first_goal: 'compare backends' });
      expect(summary.participants).to.have.members([ALICE, BOB]);
    });
  });
}

describe('ledger over HTTP: SQLite and LevelDB give the same answers', function () {
  const servers: StartedServer[] = [];

  before(async () => {
    servers.push(await startServer({ storage: 'sqlite' }), await startServer({ storage: 'level' }));
  });
  after(() => Promise.all(servers.map((s) => s.stop())));

  it('the same requests, in the same order, get the same statuses and bodies', async () => {
    const thread = newThread();
    const steps: Array<(url: string) => Promise<HttpAnswer>> = [
      (u) => ingest(u, recordInput({ thread, act: 'INTEND', body: { goal: 'g', kind: 'a.b.c', n: 1 } })),
      (u) => ingest(u, recordInput({ thread, actor: BOB, body: { kind: 'a.b.d', n: 2 } })),
      (u) => ingest(u, recordInput({ thread, clock: 1, act: 'KNOW', body: { n: 3, verdict: 'accept' } })),
      (u) => ingest(u, recordInput({ thread, clock: 1, body: { n: 4 } })),
      (u) => ingest(u, recordInput({ thread, clock: 'x' })),
      (u) => get(u, `/v1/records?thread=${thread}&limit=2`),
      (u) => get(u, `/v1/records?actor=${encodeURIComponent(BOB)}`),
      (u) => postJson(u, '/v1/records/query', { filter: { 'body.kind': { $like: 'a.b.%' } }, sort: { clock: -1 } }),
      (u) => postJson(u, '/v1/records/query', { filter: { $or: [{ 'body.n': { $gt: 2 } }, { act: 'INTEND' }] }, limit: 1, offset: 1 }),
      (u) => postJson(u, '/v1/records/query', { filter: { 'body.n': { $in: [1, '2'] } } }),
      (u) => postJson(u, '/v1/records/query', { filter: { 'body.n': { $foo: 1 } } }),
      (u) => get(u, '/v1/threads'),
      (u) => get(u, `/v1/threads/${thread}/state`),
      (u) => get(u, `/v1/threads/${thread}/participants`),
    ];
    for (const [index, step] of steps.entries()) {
      const [sqlite, level] = await Promise.all(servers.map((s) => step(s.url)));
      expect(level!.status, `step ${index}`).to.equal(sqlite!.status);
      expect(level!.json, `step ${index}`).to.deep.equal(sqlite!.json);
    }
  });
});
