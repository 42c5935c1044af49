/**
 * `loom run`, `loom runs cancel | tail | say` and `loom work preview | loop`
 * against a real server whose work plugin talks to a provider fake
 * (test/work/loop-harness.ts): the built CLI runs as a child process, shows
 * a run live and exits with its outcome's status; --json is one JSON line
 * per record and the run row last; a slow-dripping run is cancelled by
 * `runs cancel` and by Ctrl-C (SIGINT sent to the child), and a second
 * Ctrl-C quits at once. Refusals print the server's code and exit 1.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_EXIT_CODES, INTERRUPTED_EXIT } from '../../cli/commands/work/run-exit-codes.js';
import { VENDORS } from '../fakes/provider-harness.js';
import { script, type ScriptedTurn } from '../fakes/script.js';
import { cliExpectations, LOOM_CLI, runLoom, type CliRun } from '../helpers/cli-run.js';
import { newThread } from '../helpers/http-server.js';
import { loopWorld, TOOL_READ, type LoopWorld } from '../work/loop-harness.js';

const vendor = VENDORS[0]!;
/** A turn whose answer arrives one byte per 40 ms: seconds, so a cancel lands mid-answer. */
const slowTurn = (): ScriptedTurn => script.text('I am still thinking about this, slowly and at length.', { faults: { dripMs: 40 } });
const THREAD_LINE = /^run (th_[0-9a-f]{64}) started: /m;

describe('loom run, runs cancel/tail/say and work commands', function () {
  this.timeout(60_000);
  let world: LoopWorld;
  let root: string;
  let config: string;

  const loom = (args: string[], token = world.owner.token): Promise<CliRun> => runLoom(args, { url: world.server.url, config, token });
  const { json, human, refused } = cliExpectations((args: string[]) => loom(args));
  const ndjson = (stdout: string) => stdout.trimEnd().split('\n').map((l) => JSON.parse(l));

  /** The CLI as a child whose output is read as it comes, for the Ctrl-C tests. */
  function spawnLoom(args: string[]) {
    const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: config, LOOM_TOKEN: world.owner.token };
    delete env['LOOM_URL'];
    const child = spawn(process.execPath, [LOOM_CLI, ...args, '--url', world.server.url], { env });
    const out = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk) => (out.stdout += chunk));
    child.stderr.on('data', (chunk) => (out.stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const seen = async (pattern: RegExp) => {
      const deadline = Date.now() + 15_000;
      while (!pattern.test(out.stdout)) {
        if (Date.now() > deadline) throw new Error(`never printed ${pattern}: ${out.stdout} ${out.stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    return { child, out, exited, seen };
  }

  /**
   * A proxy that cuts the first run stream through it right after its first
   * record event (a dropped connection), and notes each stream request's
   * Last-Event-ID.
   */
  async function cuttingProxy(target: string) {
    const streams: Array<string | undefined> = [];
    const proxy = createServer((req, res) => {
      const stream = new URL(req.url!, target).pathname.endsWith('/stream');
      const cut = stream && streams.push(req.headers['last-event-id'] as string | undefined) === 1;
      const upstream = httpRequest(target + req.url, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        let cutting = false;
        answer.on('data', (chunk: Buffer) => {
          if (cutting) return;
          res.write(chunk);
          if (cut && chunk.includes('event: record')) {
            // Nothing more passes; the connection drops once the record has reached the client.
            cutting = true;
            setTimeout(() => {
              answer.destroy();
              res.destroy();
            }, 100);
          }
        });
        answer.on('end', () => res.end());
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as { port: number };
    return { url: `http://127.0.0.1:${port}`, streams, close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) };
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-work-cli-'));
    config = join(root, 'config.json');
    world = await loopWorld(vendor);
  });
  after(async () => {
    await world?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('loom run <label> streams each turn, tool call and result, and exits 0 on completion', async () => {
    world.fake.enqueue(script.toolCalls([{ id: 'call_1', name: TOOL_READ, input: { thread: 'th_x' } }], { usage: { input: 100, output: 20 } }), script.text('All done.', { usage: { input: 150, output: 10 } }));
    const text = await human(['run', 'Worker', 'read th_x and report']);
    const thread = THREAD_LINE.exec(text)![1]!;
    expect(text).to.contain(`run ${thread} started: ${world.member} on claude-haiku-4-5; at most 10 turns, ceiling $5.0000\n  goal: read th_x and report\n`);
    expect(text).to.match(/\nturn 1\/10: 100 in, 20 out tokens, \$0\.\d{4}; spent \$0\.\d{4} of \$5\.0000\n/);
    expect(text).to.contain(`  call ${TOOL_READ} {"thread":"th_x"}\n`);
    expect(text).to.match(new RegExp(`  result ${TOOL_READ} ok \\(\\d+ ms\\)\\n`));
    expect(text).to.match(/\nturn 2\/10: 150 in, 10 out tokens, .*\n {2}\| All done\.\n/);
    expect(text).to.match(/\noutcome: completed after 2 turns, spent \$0\.\d{4} of \$5\.0000\n$/);
    const row = await world.ended(thread);
    expect(row).to.include({ state: 'done', outcome: 'completed', turns: 2 });
  });

  it('a dropped stream is reopened with Last-Event-ID: every record shown once, in order', async () => {
    const proxy = await cuttingProxy(world.server.url);
    try {
      world.fake.enqueue(script.toolCalls([{ id: 'call_9', name: TOOL_READ, input: { thread: 'th_z' } }]), script.text('Done after the drop.'));
      const result = await runLoom(['run', 'Worker', 'survive a drop', '--json'], { url: proxy.url, config, token: world.owner.token });
      expect(result.code, result.stderr).to.equal(0);
      const lines = ndjson(result.stdout);
      const records = lines.slice(0, -1);
      expect(records.map((l) => l.record.body.kind)).to.deep.equal(['core.work.run.v1', 'core.work.turn.v1', 'core.work.tool_call.v1', 'core.work.tool_result.v1', 'core.work.turn.v1', 'core.work.loop_outcome.v1']);
      expect(proxy.streams).to.have.length(2);
      expect(proxy.streams).to.deep.equal([undefined, String(records[0].sequence)]);
      expect(lines.at(-1)).to.include({ object: 'run', outcome: 'completed' });
    } finally {
      await proxy.close();
    }
  });

  it('--json is one JSON line per record, then the run row; a run that ends max_turns exits with its own status', async () => {
    world.fake.enqueue(script.toolCalls([{ id: 'call_2', name: TOOL_READ, input: { thread: 'th_y' } }]));
    const result = await loom(['run', world.member, 'read th_y', '--max-turns', '1', '--json']);
    expect(result.code, result.stderr).to.equal(RUN_EXIT_CODES.max_turns);
    expect(result.stderr).to.match(/^loom: run th_[0-9a-f]{64} ended max_turns\n$/);
    const lines = ndjson(result.stdout);
    const records = lines.slice(0, -1);
    expect(records.map((l) => l.object)).to.deep.equal(records.map(() => 'run_record'));
    expect(records.map((l) => l.record.body.kind)).to.deep.equal(['core.work.run.v1', 'core.work.turn.v1', 'core.work.tool_call.v1', 'core.work.tool_result.v1', 'core.work.loop_outcome.v1']);
    const sequences = records.map((l) => l.sequence);
    expect(sequences).to.deep.equal([...sequences].sort((a, b) => a - b));
    const row = lines.at(-1);
    expect(row).to.include({ object: 'run', thread: records[0].record.thread, state: 'stopped_short', outcome: 'max_turns', turns: 1, max_turns: 1 });
  });

  it('runs cancel ends a slow-dripping run cancelled; runs say reaches it first; runs tail follows it to the outcome', async () => {
    world.fake.enqueue(slowTurn());
    const detached = await loom(['run', 'worker', 'think slowly', '--detach']);
    expect(detached.code, detached.stderr).to.equal(0);
    const thread = detached.stdout.trim();
    expect(thread).to.match(/^th_[0-9a-f]{64}$/);
    const replay = loom(['runs', 'tail', thread, '--replay']);
    const said = await human(['runs', 'say', thread, 'please hurry']);
    expect(said).to.match(/^message written \([0-9a-f]{64}\); the member reads it on its next turn\n$/);
    const cancelled = await human(['runs', 'cancel', thread, '--reason', 'taking too long']);
    expect(cancelled).to.match(new RegExp(`^cancel written \\([0-9a-f]{64}\\); run ${thread} ends with outcome cancelled`));
    const row = await world.ended(thread);
    expect(row).to.include({ state: 'stopped', outcome: 'cancelled' });
    const tailed = await replay;
    expect(tailed.code, tailed.stderr).to.equal(RUN_EXIT_CODES.cancelled);
    expect(tailed.stdout).to.contain(`run ${thread} started: `);
    expect(tailed.stdout).to.contain('message from ');
    expect(tailed.stdout).to.contain('  | please hurry\n');
    expect(tailed.stdout).to.contain('cancel requested by ');
    expect(tailed.stdout).to.match(/\noutcome: cancelled after 0 turns, spent \$0\.0000 of \$5\.0000\n/);
    // Once ended: cancel writes nothing, tail answers the outcome at once, say is refused with the server's code.
    expect((await json(['runs', 'cancel', thread])).cancel).to.equal(null);
    const late = await loom(['runs', 'tail', thread]);
    expect(late.code).to.equal(RUN_EXIT_CODES.cancelled);
    expect(late.stdout).to.contain('outcome: cancelled (it has ended; --replay shows it from its start)\n');
    expect(await refused(['runs', 'say', thread, 'too late'], 1)).to.contain('RUN_ENDED (409)');
  });

  it('Ctrl-C once cancels the run and waits for its outcome', async () => {
    world.fake.enqueue(slowTurn());
    const run = spawnLoom(['run', 'Worker', 'think slowly']);
    await run.seen(/goal: think slowly\n/);
    run.child.kill('SIGINT');
    expect(await run.exited).to.equal(RUN_EXIT_CODES.cancelled);
    expect(run.out.stderr).to.match(/loom: cancelling run th_[0-9a-f]{64}; its outcome follows/);
    expect(run.out.stdout).to.match(/\ncancel requested by .*: interrupted at the loom CLI\n/);
    expect(run.out.stdout).to.match(/\noutcome: cancelled after 0 turns/);
  });

  it('Ctrl-C twice quits at once (130); the run still ends cancelled', async () => {
    world.fake.enqueue(slowTurn());
    const run = spawnLoom(['run', 'Worker', 'think slowly', '--json']);
    await run.seen(/"core\.work\.run\.v1"/);
    const thread = ndjson(run.out.stdout)[0].record.thread;
    // Two signals sent back to back may merge into one: the second goes when the first has been taken,
    // as the CLI starts its cancel request (the outcome is several round trips away).
    run.child.stderr.on('data', (chunk) => {
      if (String(chunk).includes('cancelling run')) run.child.kill('SIGINT');
    });
    run.child.kill('SIGINT');
    expect(await run.exited).to.equal(INTERRUPTED_EXIT);
    expect((await world.ended(thread)).outcome).to.equal('cancelled');
  });

  it('runs tail without --replay starts where the run stands', async () => {
    world.fake.enqueue(slowTurn());
    const thread = (await loom(['run', 'Worker', 'think slowly', '--detach'])).stdout.trim();
    const tail = loom(['runs', 'tail', thread, '--json']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await json(['runs', 'cancel', thread]);
    const tailed = await tail;
    expect(tailed.code, tailed.stderr).to.equal(RUN_EXIT_CODES.cancelled);
    const lines = ndjson(tailed.stdout);
    // The opening was before the tail joined: only what came after it, then the row.
    expect(lines.slice(0, -1).map((l) => l.record.body.kind)).to.deep.equal(['core.work.loop_cancel.v1', 'core.work.loop_outcome.v1']);
    expect(lines.at(-1)).to.include({ object: 'run', thread, outcome: 'cancelled' });
  });

  it('work preview shows the tier; work loop runs a loop of the caller own live', async () => {
    const preview = await json(['work', 'preview', '--max-turns', '3']);
    const answer = await world.call('POST', '/v1/work/loop/preview', world.owner, { goal: 'preview', max_turns: 3 });
    expect(preview).to.deep.equal(answer.json);
    expect(preview.tier).to.be.a('string').and.not.be.empty;
    const text = await human(['work', 'preview', 'summarise', '--max-turns', '3']);
    expect(text).to.contain(`tier       ${preview.tier}\n`);
    expect(text).to.match(/\na start    would be admitted now\n/);

    world.fake.enqueue(script.text('Loop done.'));
    const looped = await loom(['work', 'loop', 'say done', '--max-turns', '3', '--json']);
    expect(looped.code, looped.stderr).to.equal(0);
    const lines = ndjson(looped.stdout);
    expect(lines[0]).to.include({ object: 'work_loop', status: 'started', tier: preview.tier });
    expect(lines.slice(1, -1).map((l) => l.record.body.kind)).to.deep.equal(['core.work.run.v1', 'core.work.turn.v1', 'core.work.loop_outcome.v1']);
    expect(lines.at(-1)).to.include({ object: 'run', thread: lines[0].thread, outcome: 'completed' });
  });

  it('refuses with the server code (exit 1) or the usage (exit 2)', async () => {
    // An unknown member: to an operator the server says so; to anyone else, that the caller may not run it.
    const unknownDid = 'did:sync:agent:nobody-0000000000000000';
    const asOperator = await loom(['run', unknownDid, 'anything', '--json'], world.admin.token);
    expect(asOperator.code).to.equal(1);
    expect(JSON.parse(asOperator.stdout)).to.include({ object: 'error', code: 'ACTOR_UNKNOWN', status: 404 });
    expect(asOperator.stderr).to.match(/^loom: ACTOR_UNKNOWN \(404\): /);
    expect(await refused(['run', unknownDid, 'anything'], 1)).to.contain('RUN_ACTOR_NOT_COVERED (403)');
    expect(await refused(['run', 'Nobody', 'anything'], 1)).to.contain('ACTOR_UNKNOWN');
    expect(JSON.parse((await loom(['run', 'Nobody', 'anything', '--json'])).stdout)).to.include({ object: 'error', code: 'ACTOR_UNKNOWN' });
    expect(await refused(['runs', 'tail', newThread('nope')], 1)).to.contain('NOT_FOUND (404)');
    expect(await refused(['runs', 'cancel', newThread('nope')], 1)).to.contain('NOT_FOUND (404)');
    expect(await refused(['run', 'Worker'], 2)).to.contain('takes a member and a goal');
    expect(await refused(['run', 'Worker', 'goal', '--max-turns', '0'], 2)).to.contain('--max-turns must be an integer');
    expect(await refused(['work', 'loop'], 2)).to.contain('takes one goal');
    expect(await refused(['work', 'preview', '--detach'], 2)).to.contain('--detach applies to loom work loop only');
  });
});
