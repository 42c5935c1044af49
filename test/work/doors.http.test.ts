/**
 * The run doors of issue 33 over real HTTP (spec §4.8, §4.15), on SQLite
 * and LevelDB: POST /v1/actors/{did}/runs and each of its refusals (every
 * one proving the log head did not move), ceilings that only narrow, the
 * trial mark; a person's own loop (POST /v1/work/loop, its preview, its
 * status); cancel, steer and stop; the run's event streams and their resume.
 * The world is wired to the OpenAI fake, so a member on an Anthropic model
 * has no provider.
 */
import { expect } from 'chai';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { bearer, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, SseReader, type HttpAnswer } from '../helpers/http-server.js';
import { TOOL_ADMIN } from '../members/member-tools-plugin.js';
import { loopWorld, MODEL_OF, TOOL_READ, type LoopWorld } from './loop-harness.js';

const openai = VENDORS.find((vendor) => vendor.provider === 'openai')!;
const UNKNOWN_THREAD = `th_${'ab'.repeat(32)}`;
const MISSING_RECORD = `record:${'0'.repeat(64)}`;
const kinds = (records: any[]) => records.map((record) => record.body.kind);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const storage of ['sqlite', 'level'] as const) {
  describe(`run doors over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let world: LoopWorld;
    let stranger: Credential;
    const readers: SseReader[] = [];

    const head = () => world.server.loom.engine.store.watermark();
    /** The request is refused with `status` and `code` and writes nothing. */
    const refused = async (status: number, code: string, send: () => Promise<HttpAnswer>): Promise<HttpAnswer> => {
      const before = await head();
      const answer = await send();
      expectEnvelope(answer, status, code);
      expect(await head(), `${code} wrote nothing`).to.equal(before);
      return answer;
    };
    const runsOf = (did: string) => `/v1/actors/${encodeURIComponent(did)}/runs`;
    const define = async (label: string, workLoop: Record<string, unknown>, who: Credential = world.owner): Promise<string> => {
      const answer = await world.call('POST', '/v1/actors/define', who, { label, work_loop: { model: MODEL_OF['openai'], tools: [TOOL_READ], max_turns: 10, budget_usd: 5, ...workLoop } });
      expect(answer.status, answer.text).to.equal(201);
      return answer.json.actor_did;
    };
    const sse = async (path: string, who: Credential, headers: Record<string, string> = {}): Promise<SseReader> => {
      const reader = await SseReader.open(world.server.url + path, { ...bearer(who), ...headers });
      readers.push(reader);
      expect(reader.response.status).to.equal(200);
      return reader;
    };
    /** A started run whose model is mid-answer: one byte every `dripMs`. */
    const dripping = async (dripMs = 5): Promise<string> => {
      world.fake.enqueue(script.text('A long, slowly streamed answer that takes a while to arrive.', { faults: { dripMs } }));
      const requests = world.fake.requests.length;
      const thread = await world.run({ goal: 'answer slowly' });
      for (let i = 0; world.fake.requests.length === requests; i++) {
        if (i > 500) throw new Error('the run never called its model');
        await sleep(10);
      }
      return thread;
    };

    before(async () => {
      world = await loopWorld(openai, { storage });
      stranger = await createAccount(world.server.url, world.admin, 'stranger', ['records:read', 'records:write']);
    });
    afterEach(() => {
      for (const reader of readers.splice(0)) reader.close();
    });
    after(async () => world?.stop());

    describe('POST /v1/actors/{did}/runs refusals, each writing nothing', () => {
      it('RUN_ACTOR_NOT_COVERED: another account may not run the member', async () => {
        await refused(403, 'RUN_ACTOR_NOT_COVERED', () => world.call('POST', runsOf(world.member), stranger, { goal: 'not mine' }));
      });

      it('RUN_ACTOR_NOT_COVERED: a retired member is refused, even to its owner', async () => {
        const retiree = await define('Retiree', {});
        const retired = await world.call('DELETE', `/v1/actors/${encodeURIComponent(retiree)}/definition`, world.owner);
        expect(retired.status, retired.text).to.equal(200);
        await refused(403, 'RUN_ACTOR_NOT_COVERED', () => world.call('POST', runsOf(retiree), world.owner, { goal: 'rest' }));
      });

      it('ACTOR_UNKNOWN for an operator naming no member; a non-operator is told RUN_ACTOR_NOT_COVERED', async () => {
        const nobody = 'did:sync:agent:nobody-0000000000000000';
        await refused(404, 'ACTOR_UNKNOWN', () => world.call('POST', runsOf(nobody), world.admin, { goal: 'who' }));
        await refused(403, 'RUN_ACTOR_NOT_COVERED', () => world.call('POST', runsOf(nobody), world.owner, { goal: 'who' }));
      });

      it('INVALID_BODY: a bad field, an unknown field, no goal', async () => {
        await refused(422, 'INVALID_BODY', () => world.call('POST', runsOf(world.member), world.owner, { goal: 'x', max_turns: 0 }));
        await refused(422, 'INVALID_BODY', () => world.call('POST', runsOf(world.member), world.owner, { goal: 'x', verification: 'sometimes' }));
        await refused(422, 'INVALID_BODY', () => world.call('POST', runsOf(world.member), world.owner, { goal: 'x', bogus: true }));
        await refused(422, 'INVALID_BODY', () => world.call('POST', runsOf(world.member), world.owner, { max_turns: 2 }));
      });

      it('WORK_PROMPT_UNRESOLVED: a trial definition whose system_prompt_ref names no record', async () => {
        await refused(422, 'WORK_PROMPT_UNRESOLVED', () =>
          world.call('POST', runsOf(world.member), world.owner, { goal: 'x', definition: { model: MODEL_OF['openai'], tools: [TOOL_READ], system_prompt_ref: MISSING_RECORD } }),
        );
      });

      it('TOOL_NOT_IN_REACH: a trial definition with a tool beyond the caller; the message ends "No trial ran."', async () => {
        const answer = await refused(403, 'TOOL_NOT_IN_REACH', () =>
          world.call('POST', runsOf(world.member), world.owner, { goal: 'x', definition: { model: MODEL_OF['openai'], tools: [TOOL_READ, TOOL_ADMIN] } }),
        );
        expect(answer.json.message).to.match(/No trial ran\.$/);
      });

      it('REPO_UNKNOWN, MODEL_UNKNOWN (model_override), WORK_NO_PROVIDER (a model whose provider is not configured)', async () => {
        await refused(400, 'REPO_UNKNOWN', () => world.call('POST', runsOf(world.member), world.owner, { goal: 'x', repo: 'acme/widgets' }));
        await refused(422, 'MODEL_UNKNOWN', () => world.call('POST', runsOf(world.member), world.owner, { goal: 'x', model_override: 'no-such-model-9' }));
        await refused(503, 'WORK_NO_PROVIDER', () => world.call('POST', runsOf(world.member), world.owner, { goal: 'x', model_override: MODEL_OF['anthropic'] }));
        // A member defined on an Anthropic model, on a world wired to OpenAI only.
        const claude = await define('Claude', { model: MODEL_OF['anthropic'] });
        await refused(503, 'WORK_NO_PROVIDER', () => world.call('POST', runsOf(claude), world.owner, { goal: 'x' }));
      });

      it('WORK_DAILY_COUNT_EXCEEDED (429): a member with daily_loop_cap 1 starts once a day', async () => {
        const once = await define('Once', { daily_loop_cap: 1 });
        world.fake.enqueue(script.text('Done once.'));
        const first = await world.call('POST', runsOf(once), world.owner, { goal: 'once' });
        expect(first.status, first.text).to.equal(201);
        expect((await world.ended(first.json.thread)).outcome).to.equal('completed');
        await refused(429, 'WORK_DAILY_COUNT_EXCEEDED', () => world.call('POST', runsOf(once), world.owner, { goal: 'twice' }));
      });
    });

    describe('POST /v1/actors/{did}/runs', () => {
      it('ceilings only narrow: max_turns above the member’s is the member’s, below it is the request’s', async () => {
        world.fake.enqueue(script.text('wide'), script.text('narrow'));
        const wide = await world.run({ goal: 'wide', max_turns: 50 });
        expect((await world.ended(wide)).max_turns).to.equal(10);
        const narrow = await world.run({ goal: 'narrow', max_turns: 3 });
        const row = await world.ended(narrow);
        expect(row.max_turns).to.equal(3);
        expect(row.outcome).to.equal('completed');
        const opening = (await world.records(narrow))[0];
        expect(opening.body.max_turns).to.equal(3);
        expect(opening.body.trial).to.equal(false);
      });

      it('a trial definition runs, not installed, and its run is marked; provenance still answers', async () => {
        world.fake.enqueue(script.text('Trial done.'));
        const answer = await world.call('POST', runsOf(world.member), world.owner, { goal: 'try it', definition: { model: MODEL_OF['openai'], tools: [TOOL_READ], max_turns: 2 } });
        expect(answer.status, answer.text).to.equal(201);
        expect(answer.json.object).to.equal('run');
        expect(answer.json.thread).to.be.a('string');
        expect(answer.json.actor).to.equal(world.member);
        const row = await world.ended(answer.json.thread);
        expect(row.outcome).to.equal('completed');
        expect(row.max_turns).to.equal(2);
        const records = await world.records(answer.json.thread);
        expect(records[0].body.kind).to.equal('core.work.run.v1');
        expect(records[0].body.trial).to.equal(true);
        expect(records[0].body.trial_definition).to.be.an('object');
        const provenance = await world.call('GET', `/v1/runs/${answer.json.thread}/provenance`, world.owner);
        expect(provenance.status, provenance.text).to.equal(200);
        // Not installed: the member's own definition still says 10 turns.
        world.fake.enqueue(script.text('Back to normal.'));
        expect((await world.ended(await world.run({ goal: 'normal' }))).max_turns).to.equal(10);
      });
    });

    describe('a person’s own loop: POST /v1/work/loop, preview, status', () => {
      it('starts (201 work_loop shape) and the run completes', async () => {
        world.fake.enqueue(script.text('My own loop is done.'));
        const answer = await world.call('POST', '/v1/work/loop', world.owner, { goal: 'do my thing', max_turns: 4 });
        expect(answer.status, answer.text).to.equal(201);
        const body = answer.json;
        expect(body.object).to.equal('work_loop');
        expect(body.status).to.equal('started');
        expect(body.thread).to.be.a('string');
        expect(body.tier).to.equal('Trial');
        expect(body.effective_config).to.have.all.keys('max_turns', 'token_budget', 'wall_clock_secs', 'forbidden_tools');
        expect(body.effective_config.max_turns).to.equal(4);
        expect(body.effective_config.forbidden_tools).to.include(TOOL_ADMIN);
        expect(body.watch).to.equal(`/v1/work/loop/${body.thread}/stream`);
        const row = await world.ended(body.thread);
        expect(row.outcome).to.equal('completed');
        expect(row.actor).to.equal(world.owner.did);
        const status = await world.call('GET', `/v1/work/loop/${body.thread}`, world.owner);
        expect(status.status, status.text).to.equal(200);
        expect(status.json.object).to.equal('work_loop_status');
        expect(status.json.thread).to.equal(body.thread);
        expect(status.json.state).to.equal('done');
        expect(status.json.outcome).to.equal('completed');
        expect(status.json.driven_here).to.equal(false);
        expect(status.json.watch).to.equal(body.watch);
        expect(status.json.run.thread).to.equal(body.thread);
      });

      it('a tool beyond the caller’s reach is TOOL_NOT_IN_REACH and writes nothing', async () => {
        await refused(403, 'TOOL_NOT_IN_REACH', () => world.call('POST', '/v1/work/loop', world.owner, { goal: 'x', tools: [TOOL_ADMIN] }));
        await refused(422, 'INVALID_BODY', () => world.call('POST', '/v1/work/loop', world.owner, { goal: 'x', bogus: 1 }));
        await refused(422, 'MODEL_UNKNOWN', () => world.call('POST', '/v1/work/loop', world.owner, { goal: 'x', model: 'no-such-model-9' }));
      });

      it('GET /v1/work/loop/{thread}: 404 NOT_FOUND for an unknown thread', async () => {
        const answer = await world.call('GET', `/v1/work/loop/${UNKNOWN_THREAD}`, world.owner);
        expectEnvelope(answer, 404, 'NOT_FOUND');
      });

      it('preview: the caller’s tier (Trial, Operator), its caps, usage today, and writes nothing', async () => {
        const before = await head();
        const plain = await world.call('POST', '/v1/work/loop/preview', world.owner, { goal: 'what if', max_turns: 3 });
        expect(plain.status, plain.text).to.equal(200);
        expect(plain.json.object).to.equal('work_loop_preview');
        expect(plain.json.tier).to.equal('Trial');
        expect(plain.json.caps).to.have.all.keys('max_turns', 'wall_clock_secs', 'token_budget', 'daily_cost_cap_usd', 'daily_loop_cap');
        expect(plain.json.effective_config.max_turns).to.equal(3);
        expect(plain.json.usage_today).to.have.all.keys('loop_count', 'cost_usd');
        expect(plain.json.usage_today.loop_count).to.be.at.least(1);
        expect(plain.json.tool_grant.default).to.be.an('array');
        expect(plain.json.tool_grant.requestable).to.not.include(TOOL_ADMIN);
        expect(plain.json.would_be_denied).to.equal(false);
        expect(plain.json.denial_reason).to.equal(null);
        const operator = await world.call('POST', '/v1/work/loop/preview', world.admin, { goal: 'what if' });
        expect(operator.status, operator.text).to.equal(200);
        expect(operator.json.tier).to.equal('Operator');
        expect(operator.json.caps.daily_loop_cap).to.equal(null);
        expect(operator.json.tool_grant.requestable).to.include(TOOL_ADMIN);
        expect(await head(), 'preview wrote nothing').to.equal(before);
      });

      it('preview counts the caller’s loops today and says would_be_denied WORK_DAILY_COUNT_EXCEEDED at the tier’s count; the next start is 429', async () => {
        const busy = await createAccount(world.server.url, world.admin, `busy-${storage}`, ['records:read', 'records:write']);
        const first = await world.call('POST', '/v1/work/loop/preview', busy, { goal: 'x' });
        expect(first.json.usage_today.loop_count).to.equal(0);
        const cap: number = first.json.caps.daily_loop_cap;
        expect(cap).to.be.a('number');
        for (let i = 0; i < cap; i++) {
          world.fake.enqueue(script.text(`loop ${i}`));
          const started = await world.call('POST', '/v1/work/loop', busy, { goal: `loop ${i}` });
          expect(started.status, started.text).to.equal(201);
          await world.ended(started.json.thread);
          if (i === 0) expect((await world.call('POST', '/v1/work/loop/preview', busy, { goal: 'x' })).json.usage_today.loop_count).to.equal(1);
        }
        const full = await world.call('POST', '/v1/work/loop/preview', busy, { goal: 'x' });
        expect(full.json.usage_today.loop_count).to.equal(cap);
        expect(full.json.would_be_denied).to.equal(true);
        expect(full.json.denial_reason).to.equal('WORK_DAILY_COUNT_EXCEEDED');
        await refused(429, 'WORK_DAILY_COUNT_EXCEEDED', () => world.call('POST', '/v1/work/loop', busy, { goal: 'one too many' }));
      });
    });

    describe('cancel and steer', () => {
      it('cancel: 202 with the cancel record; the run ends cancelled; again: 200 with cancel null, nothing written; a stranger: 403', async () => {
        const thread = await dripping();
        await refused(403, 'FORBIDDEN', () => world.call('POST', `/v1/work/loop/${thread}/cancel`, stranger, {}));
        const answer = await world.call('POST', `/v1/work/loop/${thread}/cancel`, world.owner, { reason: 'enough' });
        expect(answer.status, answer.text).to.equal(202);
        expect(answer.json.object).to.equal('work_loop_cancel');
        expect(answer.json.thread).to.equal(thread);
        expect(answer.json.cancel).to.be.a('string');
        const row = await world.ended(thread, 5_000);
        expect(row.outcome).to.equal('cancelled');
        const records = await world.records(thread);
        const cancel = records.find((record) => record.body.kind === 'core.work.loop_cancel.v1');
        expect(cancel?.id).to.equal(answer.json.cancel);
        expect(kinds(records).at(-1)).to.equal('core.work.loop_outcome.v1');
        const before = await head();
        const again = await world.call('POST', `/v1/work/loop/${thread}/cancel`, world.owner, {});
        expect(again.status, again.text).to.equal(200);
        expect(again.json.cancel).to.equal(null);
        expect(await head(), 'a cancel of an ended run wrote nothing').to.equal(before);
        await refused(404, 'NOT_FOUND', () => world.call('POST', `/v1/work/loop/${UNKNOWN_THREAD}/cancel`, world.owner, {}));
      });

      it('a message to a run whose model is mid-answer (after a tool call) is 201 and the next provider request carries it', async () => {
        world.fake.enqueue(script.toolCalls([{ name: TOOL_READ, input: { thread: 'th_steer' } }], { faults: { dripMs: 2 } }), script.text('Steered.'));
        const requests = world.fake.requests.length;
        const thread = await world.run({ goal: 'read and report' });
        while (world.fake.requests.length === requests) await sleep(10);
        const words = 'Please also mention the weather in Lisbon.';
        const answer = await world.call('POST', `/v1/runs/${thread}/events`, world.owner, { type: 'message', text: words });
        expect(answer.status, answer.text).to.equal(201);
        expect(answer.json.object).to.equal('run_event');
        expect(answer.json.type).to.equal('message');
        expect(answer.json.record).to.be.a('string');
        const row = await world.ended(thread);
        expect(row.outcome).to.equal('completed');
        expect(world.fake.requests).to.have.length(requests + 2);
        expect(world.fake.requests[requests]!.rawBody).to.not.contain(words);
        expect(world.fake.requests[requests + 1]!.rawBody).to.contain(words);
      });

      it('a message to a run whose model is streaming what would be its last answer is read by one more model call', async () => {
        world.fake.enqueue(script.text('First thoughts, slowly.', { faults: { dripMs: 5 } }), script.text('Taking your words into account.'));
        const requests = world.fake.requests.length;
        const thread = await world.run({ goal: 'think aloud' });
        while (world.fake.requests.length === requests) await sleep(10);
        const words = 'Wait: consider the budget too.';
        const answer = await world.call('POST', `/v1/runs/${thread}/events`, world.owner, { type: 'message', text: words });
        expect(answer.status, answer.text).to.equal(201);
        const row = await world.ended(thread);
        expect(row.outcome).to.equal('completed');
        const unread = world.fake.pending();
        // What the run never asked for is drained, so later tests start from an empty script.
        await drain(world);
        expect(unread, 'the message landed while the model streamed; no model call ever read it (see /work/notes/doors33.md, bug 1)').to.equal(0);
        expect(world.fake.requests.length).to.equal(requests + 2);
        expect(world.fake.requests[requests + 1]!.rawBody).to.contain(words);
      });

      it('a message to an ended run is 409 RUN_ENDED and writes nothing; a stranger is 403', async () => {
        world.fake.enqueue(script.text('Over.'));
        const thread = await world.run({ goal: 'short' });
        await world.ended(thread);
        await refused(409, 'RUN_ENDED', () => world.call('POST', `/v1/runs/${thread}/events`, world.owner, { type: 'message', text: 'too late' }));
        await refused(403, 'FORBIDDEN', () => world.call('POST', `/v1/runs/${thread}/events`, stranger, { type: 'message', text: 'not mine' }));
        await refused(422, 'INVALID_BODY', () => world.call('POST', `/v1/runs/${thread}/events`, world.owner, { type: 'shout', text: 'x' }));
      });

      it('{type: stop} ends the run cancelled', async () => {
        const thread = await dripping();
        const answer = await world.call('POST', `/v1/runs/${thread}/events`, world.owner, { type: 'stop', reason: 'changed my mind' });
        expect(answer.status, answer.text).to.equal(201);
        expect(answer.json.type).to.equal('stop');
        expect(answer.json.record).to.be.a('string');
        const row = await world.ended(thread, 5_000);
        expect(row.outcome).to.equal('cancelled');
        expect(row.state).to.equal('stopped');
        const stopAgain = await world.call('POST', `/v1/runs/${thread}/events`, world.owner, { type: 'stop' });
        expect(stopAgain.status, stopAgain.text).to.equal(200);
        expect(stopAgain.json.record).to.equal(null);
      });
    });

    describe('streams', () => {
      it('GET /v1/work/loop/{thread}/stream: the run’s records as `record` events whose ids are sequences; Last-Event-ID resumes without duplicates', async () => {
        world.fake.enqueue(script.toolCalls([{ name: TOOL_READ, input: { thread: 'th_stream' } }]), script.text('Streamed.'));
        const thread = await world.run({ goal: 'stream me' });
        await world.ended(thread);
        const records = await world.records(thread);
        expect(records.length).to.be.at.least(5);
        const reader = await sse(`/v1/work/loop/${thread}/stream`, world.owner);
        await reader.untilEvents(records.length);
        await sleep(100);
        expect(reader.events).to.have.length(records.length);
        expect(reader.events.every((event) => event.event === 'record')).to.equal(true);
        expect(reader.events.map((event) => JSON.parse(event.data).id)).to.deep.equal(records.map((record) => record.id));
        const ids = reader.events.map((event) => Number(event.id));
        expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!))).to.equal(true);
        reader.close();
        const resumed = await sse(`/v1/work/loop/${thread}/stream`, world.owner, { 'last-event-id': reader.events[1]!.id! });
        await resumed.untilEvents(records.length - 2);
        await sleep(100);
        expect(resumed.events.map((event) => JSON.parse(event.data).id)).to.deep.equal(records.slice(2).map((record) => record.id));
        const after = await sse(`/v1/work/loop/${thread}/stream?after=${reader.events.at(-2)!.id}`, world.owner);
        await after.untilEvents(1);
        await sleep(100);
        expect(after.events.map((event) => JSON.parse(event.data).id)).to.deep.equal([records.at(-1).id]);
      });

      it('the stream delivers a live run’s records as they land, to the outcome', async () => {
        world.fake.enqueue(script.text('Live, dripping.', { faults: { dripMs: 2 } }));
        const thread = await world.run({ goal: 'live' });
        const reader = await sse(`/v1/work/loop/${thread}/stream`, world.owner);
        await reader.until((r) => r.events.some((event) => JSON.parse(event.data).body.kind === 'core.work.loop_outcome.v1'), 10_000, 'the outcome');
        expect(reader.events.map((event) => JSON.parse(event.data).body.kind)).to.deep.equal(['core.work.run.v1', 'core.work.turn.v1', 'core.work.loop_outcome.v1']);
      });

      it('GET /v1/runs/{thread}/events?replay=true replays from the first record; without replay only what lands next', async () => {
        world.fake.enqueue(script.text('Replay me.'));
        const thread = await world.run({ goal: 'replay' });
        await world.ended(thread);
        const records = await world.records(thread);
        const replay = await sse(`/v1/runs/${thread}/events?replay=true`, world.owner);
        await replay.untilEvents(records.length);
        expect(JSON.parse(replay.events[0]!.data).body.kind).to.equal('core.work.run.v1');
        expect(replay.events.map((event) => JSON.parse(event.data).id)).to.deep.equal(records.map((record) => record.id));
        const live = await sse(`/v1/runs/${thread}/events`, world.owner);
        await sleep(200);
        expect(live.events).to.have.length(0);
        const stream = await world.call('GET', `/v1/runs/${UNKNOWN_THREAD}/events?replay=true`, world.owner);
        expectEnvelope(stream, 404, 'NOT_FOUND');
      });
    });

    describe('admission', () => {
      it('ADMISSION_CEILING (503) past work.maxConcurrentRuns, its message carrying both numbers; writes nothing', async () => {
        const narrow = await loopWorld(openai, { storage, work: { maxConcurrentRuns: 1 } });
        try {
          narrow.fake.enqueue(script.text('A long, slowly streamed answer that takes a while to arrive.', { faults: { dripMs: 20 } }));
          const thread = await narrow.run({ goal: 'hold the slot' });
          const before = await narrow.server.loom.engine.store.watermark();
          const answer = await narrow.call('POST', `/v1/actors/${encodeURIComponent(narrow.member)}/runs`, narrow.owner, { goal: 'second' });
          expectEnvelope(answer, 503, 'ADMISSION_CEILING');
          expect(answer.json.message).to.match(/\b1\b[^]*\b1\b/);
          const own = await narrow.call('POST', '/v1/work/loop', narrow.owner, { goal: 'mine' });
          expectEnvelope(own, 503, 'ADMISSION_CEILING');
          expect(await narrow.server.loom.engine.store.watermark()).to.equal(before);
          const cancel = await narrow.call('POST', `/v1/work/loop/${thread}/cancel`, narrow.owner, {});
          expect(cancel.status, cancel.text).to.equal(202);
          expect((await narrow.ended(thread, 5_000)).outcome).to.equal('cancelled');
          narrow.fake.enqueue(script.text('Now there is room.'));
          expect((await narrow.ended(await narrow.run({ goal: 'third' }))).outcome).to.equal('completed');
        } finally {
          await narrow.stop();
        }
      });
    });
  });
}

/** Consumes every still-queued scripted response with a direct request to the fake, so the next test starts from an empty script. */
async function drain(world: LoopWorld): Promise<void> {
  while (world.fake.pending() > 0) {
    const answer = await fetch(`${world.fake.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'drain' }] }) });
    await answer.text();
  }
}
