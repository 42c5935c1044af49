/**
 * `loom runs [list]` and `loom runs show` against a real server: the built
 * CLI runs as a child process over a member with two runs written in the
 * run-record vocabulary; --json is the server's answer as is, the human
 * output shows the same figures, and refusals are one line. `show --verify`
 * recomputes a row from its records, and through a proxy that alters the
 * row it prints the differences and exits 3.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { cliExpectations, runLoom, type CliRun } from '../helpers/cli-run.js';
import { newThread, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { tamperingProxy } from '../helpers/tampering-proxy.js';
import { memberToolsPlugin, TOOL_READ, TOOL_WRITE } from '../members/member-tools-plugin.js';
import { DELIVERABLE, passingRun, step, type RunStep } from '../members/run-fixture.js';

describe('loom runs commands', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let root: string;
  let config: string;
  let admin: Credential;
  let reader: Credential;
  let member: string;
  let done: string;
  let running: string;

  const loom = (args: string[], token = reader.token, url = server.url): Promise<CliRun> => runLoom(args, { url, config, token });
  const { json, human, refused } = cliExpectations((args: string[]) => loom(args));
  const post = async (who: Credential, path: string, json: unknown) => {
    const answer = await request(server.url, 'POST', path, { headers: bearer(who), json });
    expect(answer.status, answer.text).to.equal(201);
    return answer.json;
  };
  let clock = 0;
  async function writeRun(steps: readonly RunStep[]): Promise<string> {
    const thread = newThread('cli-run');
    for (const s of steps) await post(admin, '/v1/records', recordInput({ thread, actor: member, act: s.act, body: s.body, clock: clock++ }));
    return thread;
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-runs-cli-'));
    config = join(root, 'config.json');
    server = await startServer({ auth: { required: true }, plugins: [memberToolsPlugin] });
    admin = await bootstrapAdmin(server.url);
    reader = await createAccount(server.url, admin, 'reader', ['records:read']);
    const defined = await post(admin, '/v1/actors/define', { label: 'Reviewer', declares_kinds: [DELIVERABLE], work_loop: { model: 'gpt-5', tools: [TOOL_READ, TOOL_WRITE] } });
    member = defined.actor_did;
    done = await writeRun(passingRun(defined.definition));
    running = await writeRun([step.open({ definition: defined.definition }), step.turn(1, 0.25)]);
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('runs and runs list print the runs newest first, filtered; --json is the server answer', async () => {
    const page = await json(['runs']);
    expect(page.data.map((r: { thread: string }) => r.thread)).to.deep.equal([running, done]);
    const answer = await request(server.url, 'GET', '/v1/runs', { headers: bearer(reader) });
    expect(page).to.deep.equal(answer.json);
    const filtered = await json(['runs', 'list', '--state', 'done', '--actor', member, '--limit', '5', '--since', '2000-01-01T00:00:00Z']);
    expect(filtered.data.map((r: { thread: string }) => r.thread)).to.deep.equal([done]);
    const text = await human(['runs', 'list']);
    expect(text).to.match(new RegExp(`${running} +running +Reviewer +1/5 +\\$0\\.2500/\\$1\\.0000`));
    expect(text).to.match(new RegExp(`${done} +done +Reviewer +2/5`));
  });

  it('runs show prints one run row; --json is the server answer', async () => {
    const row = await json(['runs', 'show', done]);
    expect(row).to.include({ object: 'run', thread: done, actor: member, state: 'done', turns: 2, tool_calls_ok: 2 });
    const text = await human(['runs', 'show', done]);
    expect(text).to.contain(`run ${done}\n`);
    expect(text).to.contain('done (completed)');
    expect(text).to.contain('2 ok, 0 failed');
  });

  it('runs show --verify recomputes the row from the run thread up to its watermark', async () => {
    const text = await human(['runs', 'show', done, '--verify']);
    expect(text).to.match(new RegExp(`^verified: run ${done} at watermark \\d+ over 9 records: 2 turns, tool calls 2 ok 0 failed, spent \\$0\\.0200, outcome completed\n$`));
    const checked = await json(['runs', 'show', running, '--verify']);
    expect(checked).to.deep.include({ ok: true, thread: running, records: 2, differences: [], not_recomputed: ['actor_name', 'started_at', 'ended_at'] });
    expect(checked.local_row).to.deep.equal(checked.server_row);
    expect(await refused(['runs', 'show', newThread('nope'), '--verify'], 1)).to.contain('NOT_FOUND');
  });

  it('runs show --verify against a server whose row was altered prints the differences and exits 3', async () => {
    const proxy = await tamperingProxy(server.url, `/v1/runs/${done}`, (row) => {
      row.turns = 7;
      row.tool_calls_failed = 1;
    });
    try {
      const result = await loom(['runs', 'show', done, '--verify'], reader.token, proxy.url);
      expect(result.code, result.stderr).to.equal(3);
      expect(result.stdout).to.match(new RegExp(`^MISMATCH: run ${done} at watermark \\d+ over 9 records: the server's row differs from the one recomputed from the records:\n`));
      expect(result.stdout).to.contain('  /turns: server 7, recomputed 2\n');
      expect(result.stdout).to.contain('  /tool_calls_failed: server 1, recomputed 0\n');
      expect(result.stderr).to.equal(`loom: run ${done} does not match the records it covers\n`);
      const asJson = await loom(['runs', 'show', done, '--verify', '--json'], reader.token, proxy.url);
      expect(asJson.code).to.equal(3);
      expect(JSON.parse(asJson.stdout)).to.deep.include({ ok: false, thread: done, records: 9 });
      // The honest row of the other run, through the same proxy, still verifies.
      expect((await loom(['runs', 'show', running, '--verify'], reader.token, proxy.url)).code).to.equal(0);
    } finally {
      await proxy.close();
    }
  });

  it('refuses by name: the server code for an unknown run, the usage for bad arguments', async () => {
    expect(await refused(['runs', 'show', newThread('nope')], 1)).to.contain('NOT_FOUND (404)');
    expect(await refused(['runs', 'show'], 2)).to.contain('takes one run thread');
    expect(await refused(['runs', 'list', '--state', 'asleep'], 2)).to.contain('--state must be one of');
    expect(await refused(['runs', 'list', '--since', 'yesterday'], 2)).to.contain('is not an ISO 8601 time');
    expect(await refused(['runs', 'list', '--limit', '0'], 2)).to.contain('--limit must be an integer');
  });
});
