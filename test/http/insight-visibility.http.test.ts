/**
 * The issue's visibility promise across every surface it adds: a
 * thread-grained credential's folds (task_list, rollup, trust, actor
 * directory, principal trust), facets and graph answers never mention a
 * thread it cannot read, nor an actor seen only there, while an admin sees
 * both. Also the actor directory's own contract (lookup detail, unknown and
 * malformed DIDs, paging).
 */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

const alice = 'did:sync:user:alice';
const bot = 'did:sync:agent:bot';
const reviewer = 'did:sync:user:rita';
const secretBot = 'did:sync:agent:secret-bot';

describe('visibility of folds, trust, graph and the actor directory (thread-grained reader)', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let url: string;
  let admin: Credential;
  let reader: Credential;
  const A = newThread('insight-a');
  const B = newThread('insight-b');

  const write = async (thread: string, actor: string, clock: number, act: string, body: Record<string, unknown>, judgedBy: string | null = null) => {
    const answer = await request(url, 'POST', '/v1/records', { json: { ...recordInput({ thread, actor, clock, body }), act, judged_by: judgedBy }, headers: bearer(admin) });
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.id as string;
  };

  /** One task with a claim and a verdict, on `thread`, worked by `worker`. */
  const task = async (thread: string, worker: string, domain: string) => {
    const intend = await write(thread, alice, 0, 'INTEND', { task: true, goal: `ship ${domain}`, assigned_to: worker, domain });
    const claim = await write(thread, worker, 0, 'KNOW', { fulfills: intend, summary: 'done' });
    await write(thread, reviewer, 0, 'KNOW', { fulfills: intend, verdict: 'accept' }, claim);
  };

  before(async () => {
    server = await startServer({ auth: { required: true } });
    url = server.url;
    admin = await bootstrapAdmin(url);
    await task(A, bot, 'code');
    await task(B, secretBot, 'secret-domain');
    reader = await createAccount(url, admin, 'thread reader', [`thread:${A}:read`]);
  });
  after(() => server.stop());

  const surfaces = [
    '/v1/folds/task_list',
    '/v1/folds/rollup',
    '/v1/folds/trust',
    '/v1/trust',
    '/v1/folds/principal_trust',
    '/v1/actors',
    `/v1/actors/lookup?did=${encodeURIComponent(alice)}`,
    '/v1/folds/actor_directory',
    '/v1/graph/facets',
    '/v1/graph/query?op=centrality',
    `/v1/graph/query?op=neighborhood&node=${encodeURIComponent(`actor:${alice}`)}&k=3`,
    `/v1/graph/query?op=shared_context&a=${encodeURIComponent(alice)}&b=${encodeURIComponent(reviewer)}`,
  ];

  it('the admin is served both threads on every surface (the test can see a leak)', async () => {
    for (const path of surfaces.filter((p) => !p.includes('lookup'))) {
      const answer = await get(url, path, bearer(admin));
      expect(answer.status, `${path}: ${answer.text}`).to.equal(200);
      const mentionsB = answer.text.includes(B) || answer.text.includes(secretBot) || answer.text.includes('secret-domain');
      if (!path.includes('shared_context') && !path.includes('neighborhood')) expect(mentionsB, `${path} should mention thread b for the admin: ${answer.text}`).to.equal(true);
    }
  });

  it('the thread reader is served its thread only: thread b, its actor and its domain are never mentioned', async () => {
    for (const path of surfaces) {
      const answer = await get(url, path, bearer(reader));
      expect(answer.status, `${path}: ${answer.text}`).to.equal(200);
      expect(answer.text, path).to.not.include(B);
      expect(answer.text, path).to.not.include(secretBot);
      expect(answer.text, path).to.not.include('secret-domain');
    }
    expectEnvelope(await get(url, `/v1/actors/lookup?did=${encodeURIComponent(secretBot)}`, bearer(reader)), 404, 'ACTOR_UNKNOWN');
    const path = await get(url, `/v1/graph/query?op=path&from=${encodeURIComponent(`actor:${alice}`)}&to=${encodeURIComponent(`thread:${B}`)}`, bearer(reader));
    expect(path.text).to.not.include(secretBot);
    expect([200, 404]).to.include(path.status);
  });

  it('lookup details an actor: records by act, threads, domains and trust by domain', async () => {
    const detail = (await get(url, `/v1/actors/lookup?did=${encodeURIComponent(bot)}`, bearer(admin))).json;
    expect(detail).to.include({ object: 'actor', did: bot, kind: 'agent', record_count: 1, thread_count: 1, assigned_tasks: 1 });
    expect(detail.by_act).to.deep.equal({ KNOW: 1 });
    expect(detail.domains).to.deep.equal({ code: 1 });
    expect(detail.threads.map((t: { thread: string }) => t.thread)).to.deep.equal([A]);
    expect(detail.trust.code.total).to.equal(1);
    expect(detail.trust.code.score).to.be.greaterThan(0);
    expect(detail.first_seen.sequence).to.be.at.most(detail.last_seen.sequence);
  });

  it('lists actors in DID order with paging and a kind filter; refuses a malformed DID', async () => {
    const all = (await get(url, '/v1/actors', bearer(admin))).json;
    expect(all.data.map((a: { did: string }) => a.did)).to.deep.equal([bot, secretBot, alice, reviewer].sort());
    const first = (await get(url, '/v1/actors?limit=2', bearer(admin))).json;
    expect(first.has_more).to.equal(true);
    const rest = (await get(url, `/v1/actors?limit=2&after=${encodeURIComponent(first.next_cursor)}`, bearer(admin))).json;
    expect([...first.data, ...rest.data].map((a: { did: string }) => a.did)).to.deep.equal(all.data.map((a: { did: string }) => a.did));
    expect((await get(url, '/v1/actors?kind=agent', bearer(admin))).json.data.map((a: { did: string }) => a.did)).to.deep.equal([bot, secretBot]);
    expectEnvelope(await get(url, '/v1/actors/lookup?did=not-a-did', bearer(admin)), 400, 'INVALID_SHAPE');
    expectEnvelope(await get(url, `/v1/actors/lookup?did=${encodeURIComponent('did:sync:user:nobody')}`, bearer(admin)), 404, 'ACTOR_UNKNOWN');
  });

  it('fold answers carry their cache_key as ETag and answer 304 to If-None-Match', async () => {
    const first = await get(url, '/v1/folds/task_list', bearer(admin));
    expect(first.headers.get('etag')).to.equal(`"${first.json.cache_key}"`);
    const again = await request(url, 'GET', '/v1/folds/task_list', { headers: { ...bearer(admin), 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
    const thread = await get(url, `/v1/folds/thread_state/${A}`, bearer(admin));
    const thread304 = await request(url, 'GET', `/v1/folds/thread_state/${A}`, { headers: { ...bearer(admin), 'if-none-match': `W/${thread.headers.get('etag')}` } });
    expect(thread304.status).to.equal(304);
  });
});
