/**
 * The run doors over real HTTP (spec §2.6, §3, §4.7, §4.15) on SQLite and
 * LevelDB: a member defined through POST /v1/actors/define, its runs
 * written as records in the run-record vocabulary (by a credential allowed
 * to write as the member, and by the admin acting as it with
 * X-Service-Actor), read back as run rows: every field, each state, the
 * list's filters and scan cap, an owner's runs, provenance under a
 * restricted reader, today's usage; records by anyone else on a run thread
 * do not count. All of it across a restart.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin } from '../../core/plugin/plugin.js';
import { KIND_DEFINITION, RunScanCeilingToken } from '../../plugins/members/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, newThread, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';
import { memberToolsPlugin, TOOL_READ, TOOL_WRITE } from './member-tools-plugin.js';
import { DELIVERABLE, passingRun, step, type RunStep } from './run-fixture.js';

const DAY = 86_400_000;
let scanCeiling = 2000;
let clockOffset = 0;
const scanPlugin = definePlugin({
  name: 'runs-scan-test',
  version: '1.0.0',
  dependencies: ['members'],
  register(scope) {
    scope.expose(RunScanCeilingToken, () => scanCeiling);
  },
});

for (const storage of ['sqlite', 'level'] as const) {
  describe(`runs over HTTP (${storage})`, function () {
    this.timeout(60_000);
    let dataDir: string;
    let server: StartedServer;
    let admin: Credential;
    let owner: Credential;
    let runner: Credential;
    let member: string;
    let definition: string;
    /** Run threads in the order written. */
    const runs: { done: string; stopped: string; short: string; running: string; byAdmin: string } = { done: '', stopped: '', short: '', running: '', byAdmin: '' };

    const start = async () => {
      server = await startServer({ storage, dataDir, keepDataDir: true, auth: { required: true }, plugins: [memberToolsPlugin, scanPlugin], clock: () => Date.now() + clockOffset });
    };
    const call = (method: string, path: string, who: Credential, json?: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
      request(server.url, method, path, { headers: { ...bearer(who), ...headers }, ...(json === undefined ? {} : { json }) });
    const get = async (path: string, who: Credential = admin) => {
      const answer = await call('GET', path, who);
      expect(answer.status, answer.text).to.equal(200);
      return answer.json;
    };
    const clocks = new Map<string, number>();

    /** Writes a run's records (as the member unless a step says otherwise) on a new thread; returns the thread. */
    async function writeRun(steps: readonly RunStep[], who: Credential = runner, headers: Record<string, string> = {}, thread = newThread('run')): Promise<string> {
      for (const s of steps) {
        const actor = s.actor ?? member;
        const clock = clocks.get(actor) ?? 0;
        clocks.set(actor, clock + 1);
        const writer = s.actor === owner.did ? owner : who;
        const answer = await call('POST', '/v1/records', writer, recordInput({ thread, actor, act: s.act, body: s.body, clock }), s.actor === owner.did ? {} : headers);
        expect(answer.status, answer.text).to.equal(201);
      }
      return thread;
    }

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'loom-runs-'));
      await start();
      admin = await bootstrapAdmin(server.url);
      owner = await createAccount(server.url, admin, 'owner', ['records:read', 'records:write']);
      const defined = await call('POST', '/v1/actors/define', owner, { label: 'Reviewer', display_name: 'The Reviewer', declares_kinds: [DELIVERABLE], work_loop: { model: 'claude-sonnet-4-6', tools: [TOOL_READ, TOOL_WRITE], max_turns: 5 } });
      expect(defined.status, defined.text).to.equal(201);
      member = defined.json.actor_did;
      definition = defined.json.definition;
      runner = await createAccount(server.url, admin, 'runner', ['records:read', 'records:write'], [member]);
      runs.done = await writeRun(passingRun(definition));
      runs.stopped = await writeRun([step.open({ definition }), step.turn(1, 0.03), step.call('c1', TOOL_READ, { thread: 'th_x' }), step.result('c1', false), step.outcome('cancelled', 1, 0.03)]);
      runs.short = await writeRun([step.open({ definition }), step.turn(1, 0.5), step.outcome('budget_exhausted', 1, 0.5)]);
      runs.byAdmin = await writeRun([step.open({ definition }), step.turn(1, 0.01), step.outcome('max_turns', 1, 0.01)], admin, { 'x-service-actor': member });
      // Still running, and someone else (the owner) writes a turn, a failed result and an outcome on its thread: none of it counts.
      runs.running = await writeRun([step.open({ definition }), step.turn(1, 0.02), { ...step.turn(2, 7), actor: owner.did }, { ...step.result('z', false), actor: owner.did }, { ...step.outcome('completed', 9, 9), actor: owner.did }]);
    });
    after(async () => {
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    const checkRows = async () => {
      const row = await get(`/v1/runs/${runs.done}`);
      expect(row).to.deep.include({
        object: 'run', thread: runs.done, actor: member, actor_name: 'The Reviewer', model: 'claude-sonnet-4-6', goal: 'review the change', source_thread: null, domain: 'code',
        definition, prompt: null, frame: null, state: 'done', outcome: 'completed', turns: 2, max_turns: 5, spent_usd: 0.02, ceiling_usd: 1, summary: null, ask: null,
        tools: [TOOL_READ, TOOL_WRITE], narrowed: [], transport: 'in_process', tool_calls_ok: 2, tool_calls_failed: 0, input_tokens: 200, output_tokens: 100,
        verb: null, needs: null, reason: null, evidence: null, candidates: null, reported_by: null,
      });
      expect(Date.parse(row.started_at)).to.be.at.most(Date.parse(row.ended_at));
      expect(await get(`/v1/runs/${runs.stopped}`)).to.deep.include({ state: 'stopped', outcome: 'cancelled', tool_calls_ok: 0, tool_calls_failed: 1, spent_usd: 0.03 });
      expect(await get(`/v1/runs/${runs.short}`)).to.deep.include({ state: 'stopped_short', outcome: 'budget_exhausted', spent_usd: 0.5 });
      expect(await get(`/v1/runs/${runs.byAdmin}`)).to.deep.include({ state: 'stopped_short', outcome: 'max_turns', actor: member });
      const running = await get(`/v1/runs/${runs.running}`);
      expect(running).to.deep.include({ state: 'running', outcome: null, turns: 1, spent_usd: 0.02, tool_calls_failed: 0, ended_at: null, input_tokens: 100 });
    };

    it('GET /v1/runs/{thread}: every field of the run row, each state; others’ records on the thread do not count', checkRows);

    it('answers 404 NOT_FOUND for an unknown run, and for a run the caller may not read', async () => {
      expectEnvelope(await call('GET', `/v1/runs/${newThread('nope')}`, admin), 404, 'NOT_FOUND');
      const reader = await createAccount(server.url, admin, 'done reader', [`thread:${runs.done}:read`]);
      expect((await call('GET', `/v1/runs/${runs.done}`, reader)).status).to.equal(200);
      expectEnvelope(await call('GET', `/v1/runs/${runs.short}`, reader), 404, 'NOT_FOUND');
      expectEnvelope(await call('GET', `/v1/runs/${runs.short}/provenance`, reader), 404, 'NOT_FOUND');
      const list = await get('/v1/runs', reader);
      expect(list.data.map((r: { thread: string }) => r.thread)).to.deep.equal([runs.done]);
    });

    it('GET /v1/runs: newest first, filtered by state, actor and since, limited', async () => {
      const threads = (page: { data: { thread: string }[] }) => page.data.map((r) => r.thread);
      const all = await get('/v1/runs');
      expect(all).to.include({ object: 'list', capped: false, scan_ceiling: 2000 });
      expect(threads(all)).to.deep.equal([runs.running, runs.byAdmin, runs.short, runs.stopped, runs.done]);
      expect(threads(await get('/v1/runs?state=stopped_short'))).to.deep.equal([runs.byAdmin, runs.short]);
      expect(threads(await get('/v1/runs?state=running'))).to.deep.equal([runs.running]);
      expect(threads(await get(`/v1/runs?actor=${encodeURIComponent(member)}&limit=2`))).to.deep.equal([runs.running, runs.byAdmin]);
      expect((await get(`/v1/runs?actor=${encodeURIComponent(owner.did)}`)).data).to.deep.equal([]);
      expect(threads(await get(`/v1/runs?since=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`))).to.have.length(5);
      expect((await get(`/v1/runs?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).data).to.deep.equal([]);
      expectEnvelope(await call('GET', '/v1/runs?since=yesterday', admin), 400, 'INVALID_QUERY');
      // An out-of-bounds limit is clamped (spec §8), a state outside §3 refused.
      expect(threads(await get('/v1/runs?limit=501'))).to.have.length(5);
      expectEnvelope(await call('GET', '/v1/runs?state=asleep', admin), 400, 'INVALID_SHAPE');
      expectEnvelope(await call('GET', '/v1/runs?limit=many', admin), 400, 'INVALID_SHAPE');
    });

    it('GET /v1/runs: a bounded scan, `capped` when it stopped before the page filled', async () => {
      scanCeiling = 3;
      try {
        const done = await get('/v1/runs?state=done');
        expect(done).to.include({ capped: true, scan_ceiling: 3 });
        expect(done.data).to.deep.equal([]);
        const page = await get('/v1/runs?limit=2');
        expect(page).to.include({ capped: false });
        expect(page.data).to.have.length(2);
        const actor = await get(`/v1/actors/${encodeURIComponent(member)}/runs`);
        expect(actor).to.include({ count: 3, truncated: true });
      } finally {
        scanCeiling = 2000;
      }
    });

    it('GET /v1/actors/{did}/runs: the runs a member executed, and those of the members an owner owns', async () => {
      const mine = await get(`/v1/actors/${encodeURIComponent(member)}/runs`);
      expect(mine).to.include({ object: 'run_list', actor: member, count: 5, truncated: false });
      expect(mine.data.map((r: { thread: string }) => r.thread)).to.deep.equal([runs.running, runs.byAdmin, runs.short, runs.stopped, runs.done]);
      const owned = await get(`/v1/actors/${encodeURIComponent(owner.did)}/runs`, owner);
      expect(owned).to.include({ actor: owner.did, count: 5, truncated: false });
      expect(await get(`/v1/actors/${encodeURIComponent('did:sync:user:nobody')}/runs`)).to.deep.equal({ object: 'run_list', actor: 'did:sync:user:nobody', count: 0, truncated: false, data: [] });
    });

    it('GET /v1/runs/{thread}/provenance: the definition record; null for what the run does not name or the caller may not read', async () => {
      const full = await get(`/v1/runs/${runs.done}/provenance`);
      expect(full).to.include({ object: 'run_provenance', thread: runs.done, prompt: null, frame: null });
      expect(full.definition).to.include({ id: definition });
      expect(full.definition.body).to.include({ kind: KIND_DEFINITION, actor_did: member });
      const reader = await createAccount(server.url, admin, 'run reader', [`thread:${runs.done}:read`]);
      expect(await get(`/v1/runs/${runs.done}/provenance`, reader)).to.deep.equal({ object: 'run_provenance', thread: runs.done, definition: null, prompt: null, frame: null });
    });

    it('GET /v1/actors/{did}/usage: today’s runs, tokens and spend; zeros on another day and for an actor without runs', async () => {
      const usage = await get(`/v1/actors/${encodeURIComponent(member)}/usage`);
      expect(usage).to.deep.include({ object: 'actor_usage', actor: member, window_kind: 'daily', loop_count: 5, input_tokens: 600, output_tokens: 300 });
      expect(usage.cost_usd).to.be.closeTo(0.02 + 0.03 + 0.5 + 0.01 + 0.02, 1e-9);
      const zeros = { window_kind: 'daily', loop_count: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
      expect(await get(`/v1/actors/${encodeURIComponent(owner.did)}/usage`)).to.deep.include(zeros);
      clockOffset = 2 * DAY;
      try {
        expect(await get(`/v1/actors/${encodeURIComponent(member)}/usage`)).to.deep.include(zeros);
      } finally {
        clockOffset = 0;
      }
    });

    it('answers the same rows after a restart', async () => {
      await server.stop();
      await start();
      await checkRows();
      expect((await get('/v1/runs')).data).to.have.length(5);
    });
  });
}
