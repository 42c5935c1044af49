/**
 * `loom evals score` and `loom evals show` against a real server: the built
 * CLI runs as a child process as the judge (LOOM_TOKEN) over a member with
 * two runs; --json is the server's answer as is, the human output shows the
 * same figures, and refusals (the server's and the CLI's own) are one line.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KIND_SUITE } from '../../plugins/members/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { cliExpectations, runLoom, type CliRun } from '../helpers/cli-run.js';
import { newThread, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { memberToolsPlugin, TOOL_READ, TOOL_WRITE } from '../members/member-tools-plugin.js';
import { DELIVERABLE, passingRun, step, type RunStep } from '../members/run-fixture.js';

describe('loom evals commands', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let root: string;
  let config: string;
  let admin: Credential;
  let owner: Credential;
  let judge: Credential;
  let member: string;
  let definition: string;
  let suite: string;

  const loom = (args: string[], token?: string): Promise<CliRun> => runLoom(args, { url: server.url, config, ...(token ? { token } : {}) });
  const { json, human, refused } = cliExpectations((args: string[], token: string = judge.token) => loom(args, token));
  const post = async (who: Credential, path: string, json: unknown) => {
    const answer = await request(server.url, 'POST', path, { headers: bearer(who), json });
    expect(answer.status, answer.text).to.equal(201);
    return answer.json;
  };
  async function writeRun(steps: readonly RunStep[]): Promise<void> {
    const thread = newThread('cli-run');
    for (const [clock, s] of steps.entries()) await post(admin, '/v1/records', recordInput({ thread, actor: member, act: s.act, body: s.body, clock }));
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-evals-cli-'));
    config = join(root, 'config.json');
    server = await startServer({ auth: { required: true }, plugins: [memberToolsPlugin] });
    admin = await bootstrapAdmin(server.url);
    owner = await createAccount(server.url, admin, 'owner', ['records:read', 'records:write']);
    judge = await createAccount(server.url, admin, 'judge', ['records:read', 'records:write']);
    const defined = await post(owner, '/v1/actors/define', { label: 'Reviewer', declares_kinds: [DELIVERABLE], work_loop: { model: 'gpt-5', tools: [TOOL_READ, TOOL_WRITE] } });
    member = defined.actor_did;
    definition = defined.definition;
    await writeRun(passingRun(definition));
    await writeRun([...passingRun(definition).slice(0, 8), step.outcome('max_turns')]);
    const written = await post(judge, '/v1/records', recordInput({ thread: newThread('suites'), actor: judge.did, act: 'KNOW', body: { kind: KIND_SUITE, name: 'cli', cases: [{ id: 'review', expected_tools: [TOOL_READ, TOOL_WRITE] }] } }));
    suite = written.id;
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('evals score writes one grade and prints it; --json is the server answer', async () => {
    const grade = await json(['evals', 'score', '--suite', suite, '--actor', member, '--definition', definition]);
    expect(grade).to.include({ object: 'grade', judge: judge.did, actor: member, runs_scored: 2, substance_scored: false, substance_score: null });
    expect(grade.structure_score).to.equal(11 / 12);
    const text = await human(['evals', 'score', '--suite', suite, '--actor', member, '--definition', definition]);
    expect(text).to.match(/^grade [0-9a-f]{64} by did:sync:system:/);
    expect(text).to.contain('0.917 (11 of 12 checks passed)');
    expect(text).to.contain('not scored (no grader model is configured)');
    expect(text).to.match(/outcome_completed +1 +2/);
  });

  it('evals show lists the grades newest first; --json is the server answer', async () => {
    const evals = await json(['evals', 'show', member]);
    expect(evals).to.include({ object: 'actor_evals', actor: member, scan_ceiling: 5000, capped: false });
    expect(evals.grades).to.have.length(2);
    const answer = await request(server.url, 'GET', `/v1/actors/${member}/evals`, { headers: bearer(judge) });
    expect(evals).to.deep.equal(answer.json);
    const text = await human(['evals', 'show', member]);
    expect(text).to.contain(`grades of ${member}, newest first:`);
    expect(text.match(/ 0\.917 /g)).to.have.length(2);
  });

  it('refuses by name: the server code for self-judgment and unknown members, the usage for bad arguments', async () => {
    expect(await refused(['evals', 'score', '--suite', suite, '--actor', member, '--definition', definition], 1, owner.token)).to.contain('VERDICT_SELF_JUDGMENT (400)');
    expect(await refused(['evals', 'show', 'did:sync:agent:nobody-0000000000000000'], 1)).to.contain('ACTOR_UNKNOWN (404)');
    expect(await refused(['evals', 'score', '--suite', 'abc', '--actor', member, '--definition', definition], 2)).to.contain('--suite "abc" is not a record id');
    expect(await refused(['evals', 'score', '--suite', suite, '--definition', definition], 2)).to.contain('needs --actor');
    expect(await refused(['evals', 'show'], 2)).to.contain('takes one member DID');
    expect(await refused(['evals', 'grade'], 2)).to.contain('loom evals score');
    const failed = await loom(['evals', 'show', 'did:sync:agent:nobody-0000000000000000', '--json'], judge.token);
    expect(failed.code).to.equal(1);
  });
});
