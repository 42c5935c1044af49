/**
 * Runs survive a crash (issue 33, G2 "Durable"), with real `loom serve`
 * processes killed with SIGKILL and restarted on the same data directory.
 * The Anthropic fake runs in this process; the spawned servers reach it over
 * HTTP through ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL (what `loom serve`
 * reads: the work plugin's providers come from the environment there, so
 * the retry policy and idle timeout are the defaults; neither is needed).
 * The member's tool is Loom's own `read_thread` (a spawned server loads no
 * test plugin).
 *
 * (a) killed while the model streams turn 2: after the restart the engine
 *     asks for turn 2 again (the interrupted call, retried once, with the
 *     same conversation) and the run completes exactly as an uninterrupted
 *     run of the same script: same turns, tool calls and spend, one result
 *     per call.
 * (b) killed while the tools of turn 1 run (a turn of many read_thread
 *     calls, so that the kill lands after some results and before others):
 *     what landed is read from the SQLite file between the kill and the
 *     restart; after it, every call has exactly one result (the ones that
 *     landed are not run again) and the run finishes as the uninterrupted
 *     one. The kill is retried (a new run each time) until it lands in that
 *     window; the window hit is asserted on.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteRecordStore } from '../../storage/sqlite/sqlite-record-store.js';
import { startFakeAnthropic } from '../fakes/fake-anthropic.js';
import type { FakeProvider } from '../fakes/fake-server.js';
import { script, type ScriptedTurn } from '../fakes/script.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { newThread, request } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';

const MODEL = 'claude-haiku-4-5';
const TOOL = 'read_thread';
const RUN = 'core.work.run.v1';
const TURN = 'core.work.turn.v1';
const CALL = 'core.work.tool_call.v1';
const RESULT = 'core.work.tool_result.v1';
const OUTCOME = 'core.work.loop_outcome.v1';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000, everyMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** One Loom data directory served by successive processes, the provider fake, and the accounts and member defined on it. */
class World {
  loom!: LoomProcess;
  admin!: Credential;
  owner!: Credential;
  member!: string;
  private constructor(readonly fake: FakeProvider) {}

  static async create(): Promise<World> {
    const world = new World(await startFakeAnthropic());
    world.loom = await world.spawn();
    world.admin = await bootstrapAdmin(world.loom.url);
    world.owner = await createAccount(world.loom.url, world.admin, 'owner', ['records:read', 'records:write']);
    const defined = await world.call('POST', '/v1/actors/define', world.owner, { label: 'Worker', work_loop: { model: MODEL, tools: [TOOL], max_turns: 10, budget_usd: 5 } });
    expect(defined.status, defined.text).to.equal(201);
    world.member = defined.json.actor_did;
    return world;
  }

  private spawn(dataDir?: string): Promise<LoomProcess> {
    return startLoomProcess({
      ...(dataDir ? { dataDir } : {}),
      // Only the fake: blank out whatever provider the test's own environment configures.
      env: { ANTHROPIC_API_KEY: 'sk-ant-api03-test-key-0123456789', ANTHROPIC_BASE_URL: this.fake.url, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', OLLAMA_HOST: '' },
    });
  }

  call(method: string, path: string, who: Credential = this.owner, json?: unknown) {
    return request(this.loom.url, method, path, { headers: bearer(who), ...(json === undefined ? {} : { json }) });
  }

  async run(goal: string): Promise<string> {
    const answer = await this.call('POST', `/v1/actors/${encodeURIComponent(this.member)}/runs`, this.owner, { goal });
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.thread;
  }

  async ended(thread: string, timeoutMs = 30_000): Promise<any> {
    let last = '';
    try {
      await until(`run ${thread} to end`, async () => {
        const answer = await this.call('GET', `/v1/runs/${thread}`, this.admin);
        expect(answer.status, answer.text).to.equal(200);
        last = answer.text;
        return answer.json.state !== 'running';
      }, timeoutMs, 25);
    } catch (error) {
      throw new Error(`${(error as Error).message}: ${last}\nserver stderr:\n${this.loom.stderr()}`);
    }
    return JSON.parse(last);
  }

  async records(thread: string): Promise<any[]> {
    const answer = await this.call('GET', `/v1/threads/${thread}/records?limit=1000`, this.admin);
    expect(answer.status, answer.text).to.equal(200);
    return answer.json.data;
  }

  /** SIGKILL, then what the data directory holds of `thread` (read from the SQLite file, as the next start will), then a new process on it. */
  async crash(thread: string, beforeRestart: () => void = () => undefined): Promise<any[]> {
    await this.loom.kill();
    const store = new SqliteRecordStore({ path: join(this.loom.dataDir, 'loom.sqlite') });
    await store.open();
    let landed: any[];
    try {
      landed = (await store.listByThread(thread, { limit: 1000 })).items.map((stored) => stored.record);
    } finally {
      await store.close();
    }
    beforeRestart();
    this.loom = await this.spawn(this.loom.dataDir);
    return landed;
  }

  async close(): Promise<void> {
    await this.loom?.stop();
    await this.loom?.remove();
    await this.fake.close();
  }
}

const ofKind = (records: readonly any[], kind: string) => records.filter((record) => record.body.kind === kind);

/** The run's account, for comparing two runs of one script: what the model was asked to do and what it cost. */
function account(records: readonly any[]) {
  const outcome = ofKind(records, OUTCOME);
  expect(outcome, 'one outcome').to.have.length(1);
  return {
    turns: ofKind(records, TURN).map((turn) => ({ turn: turn.body.turn, text: turn.body.text, stop_reason: turn.body.stop_reason, cost_usd: turn.body.cost_usd, input_tokens: turn.body.input_tokens, output_tokens: turn.body.output_tokens })),
    calls: ofKind(records, CALL).map((call) => ({ call_id: call.body.call_id, tool: call.body.tool, input: call.body.input, turn: call.body.turn })),
    results: ofKind(records, RESULT).map((result) => ({ call_id: result.body.call_id, ok: result.body.ok })).sort((a, b) => a.call_id.localeCompare(b.call_id)),
    outcome: { outcome: outcome[0].body.outcome, turns: outcome[0].body.turns, spent_usd: outcome[0].body.spent_usd, input_tokens: outcome[0].body.input_tokens, output_tokens: outcome[0].body.output_tokens },
  };
}

/** Every tool call has exactly one result, citing it; no result without a call. */
function expectOneResultPerCall(records: readonly any[]): void {
  const calls = ofKind(records, CALL);
  const results = ofKind(records, RESULT);
  for (const call of calls) {
    const mine = results.filter((result) => result.body.call_id === call.body.call_id);
    expect(mine, `results of ${call.body.call_id}`).to.have.length(1);
    expect(mine[0].parents).to.deep.equal([call.id]);
    expect(mine[0].body.ok, JSON.stringify(mine[0].body.error)).to.equal(true);
  }
  expect(results).to.have.length(calls.length);
}

function expectSameRun(row: any, records: readonly any[], baselineRow: any, baseline: readonly any[]): void {
  expect(row.state).to.equal('done');
  expect(row.outcome).to.equal('completed');
  expectOneResultPerCall(records);
  expect(account(records)).to.deep.equal(account(baseline));
  for (const field of ['outcome', 'turns', 'tool_calls_ok', 'summary']) expect(row[field], field).to.deep.equal(baselineRow[field]);
  for (const record of records) expect(record.actor).to.equal(records[0].actor);
  expect(records[0].body.kind).to.equal(RUN);
}

describe('work runs survive kill -9 (real loom processes)', function () {
  this.timeout(180_000);
  let world: World;
  const notes = newThread('restart-notes');

  before(async () => {
    world = await World.create();
    // Something for read_thread to read.
    for (let i = 0; i < 3; i++) {
      const wrote = await world.call('POST', '/v1/records', world.owner, { thread: notes, actor: world.owner.did, act: 'KNOW', body: { note: i }, clock: i, data_type: 'SCALAR', parents: [] });
      expect(wrote.status, wrote.text).to.be.oneOf([200, 201]);
    }
  });
  after(async () => world?.close());

  it('(a) killed while the model streams turn 2: the restarted engine asks for turn 2 once more and the run completes as an uninterrupted one', async () => {
    const toolTurn = (): ScriptedTurn => script.toolCalls([{ id: 'toolu_restart_a1', name: TOOL, input: { thread: notes, limit: 5 } }], { usage: { input: 120, output: 30 } });
    const closing = (extra: Partial<ScriptedTurn> = {}): ScriptedTurn => script.text('Read the notes; all done.', { usage: { input: 240, output: 12 }, ...extra });

    // The uninterrupted run of the script.
    world.fake.enqueue(toolTurn(), closing());
    const baselineThread = await world.run('read the notes and report');
    const baselineRow = await world.ended(baselineThread);
    const baseline = await world.records(baselineThread);
    expect(baselineRow.outcome, JSON.stringify(baselineRow)).to.equal('completed');

    // The same script, turn 2 dripping one byte every 25 ms (seconds for the whole answer).
    const first = world.fake.requests.length;
    world.fake.enqueue(toolTurn(), closing({ faults: { dripMs: 25 } }));
    const thread = await world.run('read the notes and report');
    await until('the fake to receive turn 2', () => world.fake.requests.length >= first + 2);
    await sleep(150); // bytes of the answer are on their way
    expect(world.fake.requests[first + 1]!.closedAt, 'turn 2 still streaming at the kill').to.equal(undefined);
    const landed = await world.crash(thread, () => world.fake.enqueue(closing()));
    expect(landed.map((record) => record.body.kind), 'on disk at the kill').to.deep.equal([RUN, TURN, CALL, RESULT]);

    const row = await world.ended(thread);
    const records = await world.records(thread);
    expectSameRun(row, records, baselineRow, baseline);
    // Turn 2 asked for exactly twice: the interrupted call, and once after the restart, with the same conversation.
    expect(world.fake.requests.length - first, 'model calls of the run').to.equal(3);
    const [interrupted, again] = [world.fake.requests[first + 1]!, world.fake.requests[first + 2]!];
    expect(interrupted.closedEarly, 'the kill cut the stream').to.equal(true);
    expect(again.body.messages).to.deep.equal(interrupted.body.messages);
    expect(again.body.max_tokens).to.equal(interrupted.body.max_tokens);
    expect(world.fake.pending(), 'nothing scripted left over').to.equal(0);
    // The run row's spend is what the recorded turns cost: the interrupted call cost nothing on paper.
    expect(account(records).outcome.spent_usd).to.equal(account(baseline).outcome.spent_usd);
  });

  it('(b) killed between tool calls and their results: each call gets exactly one result and the run finishes as an uninterrupted one', async () => {
    const CALLS = 60;
    const toolTurn = (attempt: number): ScriptedTurn =>
      script.toolCalls(
        Array.from({ length: CALLS }, (_, i) => ({ id: `toolu_restart_b${attempt}_${i}`, name: TOOL, input: { thread: notes, after: i, limit: 1 } })),
        { usage: { input: 300, output: 900 } },
      );
    const closing = (): ScriptedTurn => script.text('Read every page.', { usage: { input: 2_000, output: 8 } });

    // Tool call ids are per attempt (so that every run's calls are its own); compare the rest.
    const comparable = (records: readonly any[]) => {
      const a = account(records);
      const strip = (id: string) => id.replace(/^toolu_restart_b\d+_/, '');
      return { ...a, calls: a.calls.map((call) => ({ ...call, call_id: strip(call.call_id) })), results: a.results.map((result) => ({ ...result, call_id: strip(result.call_id) })).sort((x, y) => x.call_id.localeCompare(y.call_id)) };
    };

    world.fake.enqueue(toolTurn(0), closing());
    const baselineThread = await world.run('page through the notes');
    const baselineRow = await world.ended(baselineThread);
    const baseline = await world.records(baselineThread);
    expect(baselineRow.outcome, JSON.stringify(baselineRow)).to.equal('completed');
    expect(ofKind(baseline, RESULT)).to.have.length(CALLS);

    const windows: string[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const first = world.fake.requests.length;
      world.fake.enqueue(toolTurn(attempt), closing());
      const thread = await world.run('page through the notes');
      // Kill as soon as a result is on record: the calls are all written (before any is run), most results are not yet.
      await until('a first tool result', async () => ofKind(await world.records(thread), RESULT).length > 0, 20_000, 0);
      const landed = await world.crash(thread, () => undefined);
      const calls = ofKind(landed, CALL).length;
      const results = ofKind(landed, RESULT).length;
      const window = `attempt ${attempt}: ${calls} calls and ${results} results on disk at the kill, ${ofKind(landed, TURN).length} turn(s), ${world.fake.requests.length - first} model call(s)`;
      windows.push(window);
      // A kill that came too late (turn 2 already asked for, unanswered) leaves the closing turn to ask for again.
      if (ofKind(landed, TURN).length < 2 && world.fake.pending() === 0) world.fake.enqueue(closing());

      const row = await world.ended(thread);
      const records = await world.records(thread);
      expect(row.state, window).to.equal('done');
      expect(row.outcome, window).to.equal('completed');
      expectOneResultPerCall(records);
      expect(comparable(records), window).to.deep.equal(comparable(baseline));
      for (const field of ['turns', 'tool_calls_ok', 'summary']) expect(row[field], field).to.deep.equal(baselineRow[field]);
      // The results that landed before the kill are the ones kept: none of those calls was run again.
      const kept = new Set(ofKind(records, RESULT).map((result) => result.id));
      for (const result of ofKind(landed, RESULT)) expect(kept.has(result.id), `result ${result.body.call_id} kept`).to.equal(true);
      expect(world.fake.pending(), 'nothing scripted left over').to.equal(0);

      if (calls === CALLS && results > 0 && results < CALLS) {
        // In the window: the restart ran exactly the calls without a result, and asked the model once for turn 2.
        expect(ofKind(records, RESULT).length - results, window).to.equal(CALLS - results);
        expect(world.fake.requests.length - first, window).to.equal(2);
        console.log(`      kill landed between calls and results (${window}; ${windows.length} attempt(s))`);
        return;
      }
    }
    expect.fail(`the kill never landed between a tool call and its result:\n${windows.join('\n')}`);
  });

  it('(c) killed as soon as a turn is on record: its tool call records landed with it (one commit), and each is run once and answered', async () => {
    const CALLS = 60;
    const toolTurn = (attempt: number): ScriptedTurn =>
      script.toolCalls(
        Array.from({ length: CALLS }, (_, i) => ({ id: `toolu_restart_c${attempt}_${i}`, name: TOOL, input: { thread: notes, after: i, limit: 1 } })),
        { usage: { input: 300, output: 900 } },
      );
    const closing = (): ScriptedTurn => script.text('Read every page.', { usage: { input: 2_000, output: 8 } });
    const comparable = (records: readonly any[]) => {
      const a = account(records);
      const strip = (id: string) => id.replace(/^toolu_restart_c\d+_/, '');
      return { ...a, calls: a.calls.map((call) => ({ ...call, call_id: strip(call.call_id) })), results: a.results.map((result) => ({ ...result, call_id: strip(result.call_id) })).sort((x, y) => x.call_id.localeCompare(y.call_id)) };
    };

    world.fake.enqueue(toolTurn(0), closing());
    const baselineThread = await world.run('page through the notes');
    const baselineRow = await world.ended(baselineThread);
    const baseline = await world.records(baselineThread);
    expect(baselineRow.outcome, JSON.stringify(baselineRow)).to.equal('completed');

    const windows: string[] = [];
    for (let attempt = 1; attempt <= 6; attempt++) {
      const first = world.fake.requests.length;
      world.fake.enqueue(toolTurn(attempt), closing());
      const thread = await world.run('page through the notes');
      // Kill as soon as the turn is on record: its 60 call records are in the same commit, so they are there too.
      await until('the first turn', async () => ofKind(await world.records(thread), TURN).length > 0, 20_000, 0);
      const landed = await world.crash(thread, () => undefined);
      const calls = ofKind(landed, CALL).length;
      const window = `attempt ${attempt}: ${calls} of ${CALLS} calls and ${ofKind(landed, RESULT).length} results on disk at the kill`;
      windows.push(window);
      if (ofKind(landed, TURN).length < 2 && world.fake.pending() === 0) world.fake.enqueue(closing());

      const row = await world.ended(thread);
      const records = await world.records(thread);
      const after = `${window}; after the restart: outcome ${row.outcome}, ${ofKind(records, CALL).length} calls, ${ofKind(records, RESULT).length} results, ${ofKind(records, TURN).length} turns`;
      expect(row.outcome, after).to.equal('completed');
      expect(ofKind(records, CALL), after).to.have.length(CALLS);
      expectOneResultPerCall(records);
      expect(comparable(records), after).to.deep.equal(comparable(baseline));
      expect(world.fake.requests.length - first, after).to.equal(2);
      if (ofKind(landed, TURN).length === 1) {
        // The turn without every call never exists on disk.
        expect(calls, window).to.equal(CALLS);
        return;
      }
    }
    expect.fail(`the kill never landed after the first turn and before the second:\n${windows.join('\n')}`);
  });

  it('(d) killed while a run waits on a person\'s decision (G6): the restarted server keeps it waiting without asking the provider, and the answer resumes it on the label', async () => {
    const first = world.fake.requests.length;
    world.fake.enqueue(
      script.toolCalls([{ id: 'toolu_restart_d1', name: 'ask', input: { question: 'Which notes matter?', options: [{ id: 'opt_first', label: 'The first', description: 'Only note 0.' }, { id: 'opt_all', label: 'All of them', description: 'Notes 0 to 2.' }] } }], { usage: { input: 100, output: 20 } }),
      script.text('Reported on all of them.', { usage: { input: 150, output: 10 } }),
    );
    const thread = await world.run('ask me which notes matter, then report');
    const waiting = await world.ended(thread);
    expect(waiting.state, JSON.stringify(waiting)).to.equal('waiting_on_you');
    const id: string = waiting.ask.id;

    const landed = await world.crash(thread);
    expect(ofKind(landed, 'core.work.decision_request.v1').map((r) => r.id)).to.deep.equal([id]);
    await sleep(500);
    const after = await world.call('GET', `/v1/runs/${thread}`, world.admin);
    expect(after.json).to.deep.include({ state: 'waiting_on_you' });
    expect(after.json.ask.id).to.equal(id);
    expect(world.fake.requests.length - first, 'the provider is not asked while the run waits').to.equal(1);

    const answered = await world.call('POST', `/v1/decisions/${id}/decide`, world.owner, { decision: 'opt_all' });
    expect(answered.status, answered.text).to.equal(201);
    const row = await world.ended(thread);
    expect(row).to.include({ state: 'done', outcome: 'completed' });
    // The answer reaches the model as the ask's tool result: the option's words, not its id.
    const resumed = JSON.stringify(world.fake.requests.at(-1)!.body.messages.at(-1));
    expect(resumed).to.contain('tool_result').and.contain('All of them: Notes 0 to 2.').and.not.contain('opt_all');
    expect(world.fake.requests.length - first).to.equal(2);
  });
});
