/**
 * Threads, folds and configuration reads of the ledger plugin over loopback
 * HTTP with a real SQLite store: the thread list and its pagination, a
 * thread's state, participants and projections, the fold routes, and the
 * configuration routes with hot reload (a LEARN on th_engine_config is in
 * force as soon as its ingest is answered).
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
} from '../helpers/http-server.js';

const ALICE = 'did:sync:user:alice';
const BOB = 'did:sync:agent:bob';
const TOOLS = 'did:sync:agent:tools';
const CRON = 'did:sync:system:cron';
const GOAL = 'Write the launch notes';

describe('ledger over HTTP: threads, folds and configuration (SQLite)', function () {
  let server: StartedServer;
  let url: string;
  const ingest = async (input: RecordInput): Promise<any> => {
    const answer = await postJson(url, '/v1/records', input);
    expect(answer.status, answer.text).to.equal(201);
    return answer.json;
  };

  // open: INTEND by alice, then bob, a tool call and a system note. closed: INTEND then a KNOW fulfilling it. none: no INTEND.
  const open = newThread('open');
  const closed = newThread('closed');
  const none = newThread('none');

  before(async () => {
    server = await startServer();
    url = server.url;
    await ingest(recordInput({ thread: open, act: 'INTEND', body: { goal: GOAL, task: true } }));
    await ingest(recordInput({ thread: open, actor: BOB, act: 'DO', body: { text: 'drafting' } }));
    await ingest(recordInput({ thread: open, actor: TOOLS, act: 'CALL', body: { tool: 'spellcheck' } }));
    await ingest(recordInput({ thread: open, actor: CRON, act: 'KNOW', body: { observation: 'reminder sent' } }));
    await ingest(recordInput({ thread: open, act: 'KNOW', clock: 5, body: { observation: 'looks good' } }));
    const intend = await ingest(recordInput({ thread: closed, act: 'INTEND', body: { goal: 'close me' } }));
    await ingest(recordInput({ thread: closed, actor: BOB, act: 'KNOW', body: { fulfills: intend.id, verdict: 'accept' } }));
    await ingest(recordInput({ thread: none, act: 'LEARN', body: { insight: 'no goal here' } }));
  });
  after(() => server?.stop());

  describe('GET /v1/threads', () => {
    it('lists each thread with record_count, last_clock, participants, status and first_goal', async () => {
      const { items } = await collectPages(url, '/v1/threads', 1000);
      const find = (thread: string) => items.find((t) => t.thread === thread);
      expect(find(open)).to.deep.include({ object: 'thread', record_count: 5, last_clock: 5, status: 'open', first_goal: GOAL });
      expect(find(open).participants).to.have.members([ALICE, BOB, TOOLS, CRON]);
      expect(find(closed)).to.deep.include({ record_count: 2, last_clock: 0, status: 'closed', first_goal: 'close me' });
      expect(find(none)).to.deep.include({ record_count: 1, status: 'none', first_goal: null });
      for (const item of items) {
        expect(item.first_sequence).to.be.a('number');
        expect(item.last_sequence).to.be.at.least(item.first_sequence);
      }
    });

    it('pages with next_cursor until has_more is false, with no duplicate and no gap', async () => {
      const everything = (await collectPages(url, '/v1/threads', 1000)).items.map((t) => t.thread);
      expect(everything).to.include.members([open, closed, none]);
      const { items, pages } = await collectPages(url, '/v1/threads', 1);
      expect(items.map((t) => t.thread)).to.deep.equal(everything);
      expect(pages).to.equal(everything.length);
    });

    it('answers 400 INVALID_SHAPE for a limit that is not an integer, and clamps one out of bounds (spec §8)', async () => {
      expectEnvelope(await get(url, '/v1/threads?limit=many'), 400, 'INVALID_SHAPE');
      const low = await get(url, '/v1/threads?limit=0');
      expect(low.status, low.text).to.equal(200);
      expect(low.json.data).to.have.length(1);
      const high = await get(url, '/v1/threads?limit=5000');
      expect(high.status, high.text).to.equal(200);
    });
  });

  describe('GET /v1/threads/{id}/…', () => {
    it('/records lists the thread in log order', async () => {
      const { items } = await collectPages(url, `/v1/threads/${open}/records`, 2);
      expect(items.map((r) => r.act)).to.deep.equal(['INTEND', 'DO', 'CALL', 'KNOW', 'KNOW']);
    });

    it('/state gives actor_clocks; writing at that clock + 1 is accepted, at that clock refused', async () => {
      const state = await get(url, `/v1/threads/${open}/state`);
      expect(state.status).to.equal(200);
      expect(state.json.fold_name).to.equal('thread_state');
      expect(state.json.value).to.deep.include({ thread: open, record_count: 5, status: 'open', first_goal: GOAL, opened_by: ALICE });
      const highest = state.json.value.actor_clocks[ALICE];
      expect(highest).to.equal(5);
      const thread = newThread();
      await ingest(recordInput({ thread, clock: 3 }));
      const next = (await get(url, `/v1/threads/${thread}/state`)).json.value.actor_clocks[ALICE] + 1;
      expect((await postJson(url, '/v1/records', recordInput({ thread, clock: next }))).status).to.equal(201);
      expectEnvelope(await postJson(url, '/v1/records', recordInput({ thread, clock: next, body: { other: true } })), 409, 'DUPLICATE_CLOCK');
    });

    it('/participants lists who wrote, with next_clock and roles', async () => {
      const answer = await get(url, `/v1/threads/${open}/participants`);
      expect(answer.status).to.equal(200);
      expect(answer.json).to.include({ object: 'list', thread: open });
      const alice = answer.json.data.find((p: any) => p.actor === ALICE);
      expect(alice).to.deep.include({ object: 'participant', record_count: 2, highest_clock: 5, next_clock: 6 });
      expect(alice.roles).to.include('opener');
      expect(answer.json.data.map((p: any) => p.actor)).to.have.members([ALICE, BOB, TOOLS, CRON]);
    });

    it('/project?format=tui is a text view that shows the goal', async () => {
      const answer = await get(url, `/v1/threads/${open}/project?format=tui`);
      expect(answer.status).to.equal(200);
      expect(answer.json).to.include({ object: 'thread_projection', format: 'tui', thread: open, truncated: false });
      expect(answer.json.text).to.be.a('string').and.include(GOAL);
    });

    it('/project?format=messages gives one message per record with its role', async () => {
      const answer = await get(url, `/v1/threads/${open}/project?format=messages`);
      expect(answer.status).to.equal(200);
      expect(answer.json.format).to.equal('messages');
      expect(answer.json.messages.map((m: any) => m.role)).to.deep.equal(['user', 'assistant', 'tool', 'system', 'user']);
      expect(answer.json.messages[0].content).to.equal(GOAL);
    });

    const bad: Array<[string, string]> = [
      ['an unknown projection format', `/v1/threads/${newThread()}/project?format=html`],
      ['a thread id that is not one (state)', '/v1/threads/th_nope/state'],
      ['a thread id that is not one (participants)', `/v1/threads/${'a'.repeat(64)}/participants`],
      ['a thread id that is not one (project)', '/v1/threads/th_ABC/project'],
      ['a thread id that is not one (records)', '/v1/threads/nope/records'],
    ];
    for (const [name, path] of bad) {
      it(`answers 400 INVALID_SHAPE for ${name}`, async () => {
        expectEnvelope(await get(url, path), 400, 'INVALID_SHAPE');
      });
    }

    it('an empty thread has an empty state, not an error', async () => {
      const state = await get(url, `/v1/threads/${newThread()}/state`);
      expect(state.status).to.equal(200);
      expect(state.json.value).to.deep.include({ record_count: 0, status: 'none', last_clock: null });
    });
  });

  describe('folds', () => {
    it('GET /v1/folds lists thread_state, engine_config and namespace_registry with their scopes', async () => {
      const answer = await get(url, '/v1/folds');
      expect(answer.status).to.equal(200);
      const scopes = Object.fromEntries(answer.json.data.map((f: any) => [f.name, f.scope]));
      expect(scopes).to.deep.include({ thread_state: 'thread', engine_config: 'global', namespace_registry: 'global' });
    });

    it('GET /v1/folds/thread_state/{thread} is the same answer as /state', async () => {
      const fold = await get(url, `/v1/folds/thread_state/${closed}`);
      expect(fold.status).to.equal(200);
      expect(fold.json).to.include.keys('fold_name', 'cache_key', 'watermark', 'value');
      expect(fold.json.value).to.deep.include({ status: 'closed', record_count: 2 });
      expect(fold.json).to.deep.equal((await get(url, `/v1/threads/${closed}/state`)).json);
    });

    it('GET /v1/folds/engine_config answers the configuration fold', async () => {
      const fold = await get(url, '/v1/folds/engine_config');
      expect(fold.status).to.equal(200);
      expect(fold.json.fold_name).to.equal('engine_config');
      expect(fold.json.watermark).to.be.a('number');
      expect(fold.json.value).to.include.keys('version', 'topics', 'warnings');
      expect(fold.json.value.topics).to.include.keys('auth_required', 'auth_cors_origins');
    });

    const notFound: Array<[string, string]> = [
      ['an unknown global fold', '/v1/folds/no_such_fold'],
      ['an unknown thread fold', `/v1/folds/no_such_fold/${newThread()}`],
      ['a thread fold asked for globally', '/v1/folds/thread_state'],
      ['a global fold asked for per thread', `/v1/folds/engine_config/${newThread()}`],
    ];
    for (const [name, path] of notFound) {
      it(`answers 404 NOT_FOUND for ${name}`, async () => {
        expectEnvelope(await get(url, path), 404, 'NOT_FOUND');
      });
    }

    it('answers 400 INVALID_SHAPE for a malformed fold name or thread key', async () => {
      expectEnvelope(await get(url, '/v1/folds/Bad-Name'), 400, 'INVALID_SHAPE');
      expectEnvelope(await get(url, '/v1/folds/thread_state/th_nope'), 400, 'INVALID_SHAPE');
    });
  });

  describe('configuration', () => {
    let configClock = 0;
    const learn = (body: Record<string, unknown>): Promise<HttpAnswer> =>
      postJson(url, '/v1/records', recordInput({ thread: 'th_engine_config', actor: 'did:sync:user:owner', act: 'LEARN', clock: configClock++, body }));

    it('GET /v1/config answers the engine_config fold over the registered topics', async () => {
      const answer = await get(url, '/v1/config');
      expect(answer.status).to.equal(200);
      expect(answer.json.fold_name).to.equal('engine_config');
      expect(answer.json.value.topics).to.have.property('auth_cors_origins');
      const topics = await get(url, '/v1/config/topics');
      expect(topics.json.value.map((t: any) => [t.topic, t.owner])).to.deep.include.members([
        ['auth_required', 'auth'],
        ['auth_cors_origins', 'auth'],
      ]);
    });

    it('a configuration LEARN is in /v1/config/{topic} as soon as the ingest is answered (hot reload)', async () => {
      const before = await get(url, '/v1/config/auth-cors-origins');
      expect(before.status).to.equal(200);
      expect(before.json).to.include({ object: 'config', topic: 'auth_cors_origins', owner: 'auth' });

      const written = await learn({ topic: 'auth_cors_origins', origins: ['https://app.example'] });
      expect(written.status).to.equal(201);
      const after = await get(url, '/v1/config/auth_cors_origins');
      expect(after.json.value).to.deep.include({ origins: ['https://app.example'], record_id: written.json.id });
      expect(after.json.version).to.be.above(before.json.version);
      expect(after.json.watermark).to.be.above(before.json.watermark);

      // A later record replaces it; POST /v1/config/{topic} writes the same LEARN for the caller.
      const posted = await postJson(url, '/v1/config/auth_cors_origins', { origins: ['https://b.example'] });
      expect(posted.status, posted.text).to.equal(201);
      expect(posted.json).to.include({ thread: 'th_engine_config', act: 'LEARN' });
      expect((await get(url, '/v1/config/auth_cors_origins')).json.value).to.deep.include({ origins: ['https://b.example'], record_id: posted.json.id });
    });

    it('POST /v1/config/{topic} refuses fields the topic does not take, naming the field, and writes nothing', async () => {
      const before = (await get(url, '/v1/config')).json.watermark;
      expectEnvelope(await postJson(url, '/v1/config/auth_cors_origins', { origins: 'https://a.example' }), 400, 'INVALID_SHAPE');
      const named = await postJson(url, '/v1/config/auth_required', { enabled: 'yes' });
      expectEnvelope(named, 400, 'INVALID_SHAPE');
      expect(named.json.message).to.contain('enabled');
      expectEnvelope(await postJson(url, '/v1/config/no_such_topic', { a: 1 }), 404, 'NOT_FOUND');
      expect((await get(url, '/v1/config')).json.watermark).to.equal(before);
    });

    it('a malformed configuration record still ingests (201) and shows up in warnings', async () => {
      const written = await learn({ topic: 'auth_cors_origins', origins: 'not-a-list' });
      expect(written.status).to.equal(201);
      const unowned = await learn({ topic: 'no_plugin_owns_this', name: 'not yet' });
      expect(unowned.status).to.equal(201);
      const config = await get(url, '/v1/config');
      expect(config.json.value.warnings.map((w: any) => w.record_id)).to.include.members([written.json.id, unowned.json.id]);
      const warnings = await get(url, '/v1/config/warnings');
      expect(warnings.status).to.equal(200);
      expect(warnings.json.value.map((w: any) => w.record_id)).to.include(written.json.id);
    });

    it('answers 404 NOT_FOUND for an unknown configuration topic', async () => {
      expectEnvelope(await get(url, '/v1/config/no-such-topic'), 404, 'NOT_FOUND');
    });
  });
});
