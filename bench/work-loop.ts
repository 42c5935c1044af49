/**
 * The work loop's own overhead, not model time (issue 33 "Benchmark"): runs
 * of members on an in-process reference server (createReferenceLoom,
 * SQLite, durability full, auth off) whose OpenAI provider is the
 * protocol-exact fake of test/fakes/fake-openai.ts answering at once (one
 * write per answer, streamed chunks as the API sends them). Every run has
 * TURNS model turns: TURNS − 1 tool-call turns alternating Loom's
 * `fold_thread` and `read_thread` on a three-record thread, then a text turn
 * that completes it. The fake answers each request from its own
 * conversation (how many assistant turns it holds), so concurrent runs each
 * get exactly their script.
 *
 * Measured, as process CPU (user + system, every thread: SQLite's included)
 * from the first start to the last outcome and every consumer caught up:
 *
 * - one run at a time (SINGLES runs one after another): turns/s and CPU per turn;
 * - CONCURRENT runs at once (maxConcurrentRuns raised): the same.
 *
 * Baseline, same run: the very model requests each round's runs sent
 * (captured at the provider adapter) replayed by the adapter alone
 * (`createProviderAdapter` from plugins/work/providers, no Loom) against the
 * same fake, one run's requests after another or CONCURRENT runs' at once.
 * That is the fake's and the vendor SDK's CPU; Loom's CPU per turn =
 * (loop CPU − adapter-only CPU) ÷ turns. Loom rounds and baseline rounds
 * alternate ROUNDS times; medians are kept.
 *
 * Targets (the issue): Loom CPU ≤ 2 ms per turn (records written, gates,
 * fold updates); concurrent ÷ single Loom CPU per turn ≤ 1.2.
 */
import type { FakeProvider, RecordedRequest } from '../test/fakes/fake-server.js';
import type { ModelRequest, ProviderAdapter } from '../plugins/work/providers/index.js';
import { fmt, log, main, makeTempDir, median, round, SCALE, type Check } from './support/harness.js';
import { profiled } from './support/cpu-profile.js';

const TURNS = 20;
const CONCURRENT = 50;
const SINGLES = Math.max(3, Math.round(10 * SCALE));
const ROUNDS = SCALE >= 0.5 ? 3 : 1;
const MODEL = 'gpt-5-mini';
const TOOLS = ['fold_thread', 'read_thread'];
const API_KEY = 'sk-proj-bench-key-0123456789';
/** A directory: the first measured Loom rounds (one at a time, and all at once) are CPU-profiled there, without the baseline. */
const PROFILE_DIR = process.env['WORK_LOOP_CPUPROF'] ?? null;
/** The store's durability (default full, the server's default); `normal` leaves out the journal's fdatasync per commit. */
const DURABILITY = process.env['WORK_LOOP_DURABILITY'] === 'normal' ? 'normal' : 'full';

interface Sample {
  turns: number;
  wallMs: number;
  cpuMs: number;
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

async function run() {
  await import('reflect-metadata');
  const { createReferenceLoom } = await import('../server/reference-loom.js');
  const { silentLogger } = await import('../core/plugin/logger.js');
  const { LOCAL } = await import('../core/access/caller.js');
  const { resolve } = await import('../core/di/token.js');
  const { RunEngineToken, RunStarterToken } = await import('../plugins/work/index.js');
  const { createProviderAdapter } = await import('../plugins/work/providers/index.js');
  const { startFakeOpenAI } = await import('../test/fakes/fake-openai.js');
  const { script } = await import('../test/fakes/script.js');

  // The small thread the tools read, made before the server knows it (its id only).
  const smallThread = `th_${'5'.repeat(64)}`;

  /** Each request's answer from its own conversation: a tool call per turn until the last, then words. */
  const respond = (request: RecordedRequest) => {
    const messages: Array<{ role: string }> = request.body?.messages ?? [];
    const done = messages.filter((m) => m.role === 'assistant').length;
    if (done >= TURNS - 1) return script.text('The thread is open; it has three records and one participant.');
    const tool = TOOLS[done % TOOLS.length]!;
    return script.toolCalls([{ name: tool, input: tool === 'read_thread' ? { thread: smallThread, limit: 10 } : { thread: smallThread } }]);
  };
  const fake: FakeProvider = await startFakeOpenAI({ respond, instant: true, forget: true });
  const providerConfig = { provider: 'openai' as const, apiKey: API_KEY, baseUrl: `${fake.url}/v1` };

  const loom = await createReferenceLoom({
    dataDir: makeTempDir('work-loop'),
    host: '127.0.0.1',
    port: 0,
    logger: silentLogger,
    durability: DURABILITY,
    auth: { required: false },
    fleet: { heartbeat: false },
    work: { providers: [providerConfig], maxConcurrentRuns: CONCURRENT + 14, retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 } },
  });
  const url = await loom.start();
  const post = async (path: string, body: unknown) => {
    const answer = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await answer.text();
    if (answer.status >= 300) throw new Error(`POST ${path} answered ${answer.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
  for (let i = 0; i < 3; i++) await post('/v1/records', { thread: smallThread, actor: 'did:sync:user:bench', act: i === 0 ? 'INTEND' : 'KNOW', body: { kind: 'note', text: `record ${i} of the small thread` }, clock: i, data_type: 'SCALAR', parents: [], judged_by: null });
  // One member per concurrent run (each at the trial tier: max_turns 20, 50 runs a day).
  const members: string[] = [];
  for (let i = 0; i < CONCURRENT; i++) {
    const defined = await post('/v1/actors/define', { label: `bench-worker-${i}`, work_loop: { model: MODEL, tools: TOOLS, max_turns: TURNS, reads: [smallThread] } });
    members.push(defined.actor_did);
  }

  const starter = resolve(loom.container, RunStarterToken);
  const engine = resolve(loom.container, RunEngineToken);
  const runners = (loom.engine as unknown as Record<string, any>)['consumers'].runners as Map<string, { caughtUp(): Promise<void> }>;
  const ended = new Map<string, () => void>();
  engine.onEnded((thread) => ended.get(thread)?.());

  // Every model request the loop makes, by run (its goal), for the adapter-only replay.
  const captured = new Map<string, ModelRequest[]>();
  const loopAdapter = (engine as unknown as { deps: { providers(): { get(name: string): ProviderAdapter } } }).deps.providers().get('openai');
  const complete = loopAdapter.complete.bind(loopAdapter);
  (loopAdapter as { complete: ProviderAdapter['complete'] }).complete = (request, options) => {
    const goal = request.messages[0]?.role === 'user' ? request.messages[0].text : '';
    let list = captured.get(goal);
    if (!list) captured.set(goal, (list = []));
    list.push(request);
    return complete(request, options);
  };

  // Calls into the store during the loop rounds, by method (and records appended), to read the per-turn cost against.
  const storeCalls = new Map<string, number>();
  let counting = false;
  const store = (loom.engine as unknown as Record<string, any>)['store'] as Record<string, unknown>;
  // The RecordStore contract's methods, counted only when called from outside the store (not its own calls to itself).
  const methods = ['append', 'appendMany', 'get', 'listByThread', 'listByActor', 'listByThreadSerialized', 'changesSince', 'watermark', 'countThreads', 'listThreads', 'query', 'readCheckpoint', 'writeCheckpoint', 'readSlot', 'writeSlot'].filter((name) => typeof store[name] === 'function');
  let depth = 0;
  for (const name of methods) {
    const original = (store[name] as (...args: unknown[]) => unknown).bind(store);
    store[name] = (...args: unknown[]) => {
      if (counting && depth === 0) {
        storeCalls.set(name, (storeCalls.get(name) ?? 0) + 1);
        if (name === 'append' || name === 'appendMany') storeCalls.set('(records appended)', (storeCalls.get('(records appended)') ?? 0) + (Array.isArray(args[0]) ? args[0].length : 1));
      }
      depth++;
      try {
        return original(...args);
      } finally {
        depth--;
      }
    };
  }

  let runNumber = 0;
  const startRun = async (member: string): Promise<{ goal: string; done: Promise<void> }> => {
    const goal = `Report the state of ${smallThread} (bench run ${++runNumber}).`;
    const plan = await starter.planMemberRun(LOCAL, member, { goal });
    const done = new Promise<void>((resolveDone) => ended.set(plan.thread, () => (ended.delete(plan.thread), resolveDone())));
    await starter.start(plan);
    threads.push(plan.thread);
    return { goal, done };
  };
  const threads: string[] = [];
  const caughtUp = () => Promise.all([...runners.values()].map((runner) => runner.caughtUp()));

  /** Runs `count` runs, `parallel` at a time (1: one after another); answers the goals and the sample. */
  const loopRound = async (count: number, parallel: number): Promise<{ goals: string[]; sample: Sample }> => {
    await caughtUp();
    const goals: string[] = [];
    const wall = performance.now();
    const cpu = process.cpuUsage();
    if (parallel === 1) {
      for (let i = 0; i < count; i++) {
        const started = await startRun(members[(runNumber + i) % members.length]!);
        goals.push(started.goal);
        await started.done;
      }
    } else {
      const started = await Promise.all(Array.from({ length: count }, (_, i) => startRun(members[i % members.length]!)));
      goals.push(...started.map((s) => s.goal));
      await Promise.all(started.map((s) => s.done));
    }
    await caughtUp();
    const cpuMs = cpuMsSince(cpu);
    const wallMs = performance.now() - wall;
    const turns = goals.reduce((sum, goal) => sum + (captured.get(goal)?.length ?? 0), 0);
    return { goals, sample: { turns, wallMs, cpuMs } };
  };

  /** The same requests through the adapter alone: each run's in order, `parallel` runs at a time. */
  const replayAdapter = createProviderAdapter(providerConfig);
  const replayRound = async (goals: readonly string[], parallel: number): Promise<Sample> => {
    const replayOne = async (goal: string) => {
      for (const request of captured.get(goal) ?? []) {
        const turn = await replayAdapter.complete(request, { signal: new AbortController().signal });
        if (turn.stopReason !== 'tool_use' && turn.stopReason !== 'end_turn') throw new Error(`replay answered ${turn.stopReason}`);
      }
    };
    const wall = performance.now();
    const cpu = process.cpuUsage();
    if (parallel === 1) for (const goal of goals) await replayOne(goal);
    else await Promise.all(goals.map(replayOne));
    const cpuMs = cpuMsSince(cpu);
    return { turns: goals.reduce((sum, goal) => sum + (captured.get(goal)?.length ?? 0), 0), wallMs: performance.now() - wall, cpuMs };
  };

  // Warm-up: both paths, both shapes.
  const warmSingle = await loopRound(3, 1);
  await replayRound(warmSingle.goals, 1);
  const warmMany = await loopRound(CONCURRENT, CONCURRENT);
  await replayRound(warmMany.goals, CONCURRENT);
  const checkedThreads = threads.length;

  const single: Array<{ loop: Sample; adapter: Sample }> = [];
  const many: Array<{ loop: Sample; adapter: Sample }> = [];
  let countedTurns = 0;
  for (let r = 0; r < ROUNDS; r++) {
    counting = r === 0;
    const one = await profiled(PROFILE_DIR, 'work-loop-single', r === 0, () => loopRound(SINGLES, 1));
    counting = false;
    if (r === 0) countedTurns = one.sample.turns;
    single.push({ loop: one.sample, adapter: await replayRound(one.goals, 1) });
    const all = await profiled(PROFILE_DIR, 'work-loop-concurrent', r === 0, () => loopRound(CONCURRENT, CONCURRENT));
    many.push({ loop: all.sample, adapter: await replayRound(all.goals, CONCURRENT) });
    log(`    round ${r + 1}: one at a time ${fmt(one.sample.turns)} turns, loop ${round(one.sample.cpuMs / one.sample.turns, 3)} ms CPU/turn, adapter alone ${round(single.at(-1)!.adapter.cpuMs / one.sample.turns, 3)}; ` +
      `${CONCURRENT} at once ${fmt(all.sample.turns)} turns, loop ${round(all.sample.cpuMs / all.sample.turns, 3)} ms CPU/turn, adapter alone ${round(many.at(-1)!.adapter.cpuMs / all.sample.turns, 3)}`);
  }

  // Every run did its script: completed after TURNS turns.
  const outcomes = new Map<string, number>();
  for (const thread of threads.slice(checkedThreads)) {
    const answer = await fetch(`${url}/v1/runs/${thread}`);
    const row = (await answer.json()) as { state?: string; outcome?: string; turns?: number; tool_calls_ok?: number; tool_calls_failed?: number };
    const key = `${row.outcome ?? row.state}/${row.turns}/${row.tool_calls_ok}/${row.tool_calls_failed}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  await loom.stop();
  await fake.close();
  const expected = `completed/${TURNS}/${TURNS - 1}/0`;
  if (outcomes.size !== 1 || !outcomes.has(expected)) throw new Error(`runs did not all complete after ${TURNS} turns and ${TURNS - 1} good tool calls (outcome/turns/ok/failed): ${JSON.stringify(Object.fromEntries(outcomes))}`);

  const summarise = (samples: Array<{ loop: Sample; adapter: Sample }>) => {
    const loomMs = median(samples.map((s) => (s.loop.cpuMs - s.adapter.cpuMs) / s.loop.turns));
    return {
      loomMs: round(loomMs, 3),
      loopMs: round(median(samples.map((s) => s.loop.cpuMs / s.loop.turns)), 3),
      adapterMs: round(median(samples.map((s) => s.adapter.cpuMs / s.adapter.turns)), 3),
      turnsPerS: round(median(samples.map((s) => (s.loop.turns * 1000) / s.loop.wallMs)), 0),
      adapterTurnsPerS: round(median(samples.map((s) => (s.adapter.turns * 1000) / s.adapter.wallMs)), 0),
      turns: samples[0]!.loop.turns,
      all: samples.map((s) => round((s.loop.cpuMs - s.adapter.cpuMs) / s.loop.turns, 3)),
    };
  };
  const perTurn = Object.fromEntries([...storeCalls].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, round(n / countedTurns, 2)]));
  log(`    store calls per turn (one run at a time, round 1): ${Object.entries(perTurn).map(([name, n]) => `${name} ${n}`).join(', ')}`);
  const one = summarise(single);
  const fifty = summarise(many);
  const ratio = fifty.loomMs / one.loomMs;
  const detail = (s: ReturnType<typeof summarise>, what: string) =>
    `${what}: loop ${s.loopMs} ms CPU/turn − adapter alone [baseline] ${s.adapterMs} ms = Loom ${s.loomMs} ms (rounds ${s.all.join(', ')}); ${fmt(s.turnsPerS)} turns/s (adapter alone ${fmt(s.adapterTurnsPerS)} turns/s), ${s.turns} turns per round, median of ${ROUNDS}`;
  const checks: Check[] = [
    { label: 'Loom CPU per turn, one run at a time (ms)', ratio: one.loomMs, target: '≤ 2 ms', pass: one.loomMs <= 2, detail: detail(one, `${SINGLES} runs one after another`) },
    { label: `Loom CPU per turn, ${CONCURRENT} concurrent runs (ms)`, ratio: fifty.loomMs, target: '≤ 2 ms', pass: fifty.loomMs <= 2, detail: detail(fifty, `${CONCURRENT} runs at once`) },
    { label: `${CONCURRENT} concurrent ÷ one run, Loom CPU per turn`, ratio: round(ratio, 3), target: '≤ 1.2', pass: ratio <= 1.2, detail: `${fifty.loomMs} ms ÷ ${one.loomMs} ms; turns/s ${fmt(fifty.turnsPerS)} at once vs ${fmt(one.turnsPerS)} one at a time` },
  ];
  return {
    figures: { durability: DURABILITY, store_calls_per_turn: perTurn, turns_per_run: TURNS, concurrent: CONCURRENT, singles: SINGLES, rounds: ROUNDS, single: one, concurrent_runs: fifty, concurrent_over_single: round(ratio, 3), outcomes: Object.fromEntries(outcomes) },
    checks,
    notes: [
      `Each run: ${TURNS - 1} tool-call turns (fold_thread / read_thread on a 3-record thread) then a text turn; per turn Loom writes the turn, the call and the result records (plus the opening and the outcome per run).`,
      'CPU is the whole process (user + system, every thread) with the fake in it; the adapter-only replay of the same requests against the same fake is subtracted.',
    ],
  };
}

main(import.meta.url, { name: 'work-loop', title: `work-loop overhead: Loom CPU per turn, one run and ${CONCURRENT} at once, instant fake provider`, run });
