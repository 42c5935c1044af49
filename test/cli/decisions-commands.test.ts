/**
 * `loom decisions` against a real server whose member runs on the Anthropic
 * fake: list (human and --json, the server's answer as is), answer with
 * --choose and --other, answer interactively (the options shown, the choice
 * typed on stdin), and a refusal by name on one line.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { cliExpectations, LOOM_CLI, runLoom, type CliRun } from '../helpers/cli-run.js';
import { loopWorld, type LoopWorld } from '../work/loop-harness.js';

const anthropic = VENDORS.find((vendor) => vendor.provider === 'anthropic')!;

describe('loom decisions commands', function () {
  this.timeout(90_000);
  let world: LoopWorld;
  let root: string;
  let config: string;
  const loom = (args: string[]): Promise<CliRun> => runLoom(args, { url: world.server.url, config, token: world.owner.token });
  const { json, human, refused } = cliExpectations((args: string[]) => loom(args));

  /** Starts a run that asks `question` with two options, and waits until it waits. */
  async function asking(question: string): Promise<{ thread: string; id: string }> {
    world.fake.enqueue(
      script.toolCalls([{ name: 'ask', input: { question, options: [{ id: 'keep', label: 'Keep it', description: 'Leave the file as it is.' }, { id: 'drop', label: 'Drop it', description: 'Delete the file.' }], allow_other: true } }]),
      script.text('Done.'),
    );
    const thread = await world.run({ goal: question });
    const row = await world.ended(thread);
    expect(row.state).to.equal('waiting_on_you');
    return { thread, id: row.ask.id };
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-decisions-cli-'));
    config = join(root, 'config.json');
    world = await loopWorld(anthropic);
  });
  after(async () => {
    await world?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('lists pending decisions; --json is the server answer; answers with --choose, then the run resumes', async () => {
    const { thread, id } = await asking('Keep the old file?');
    const page = await json(['decisions', '--run', thread]);
    const direct = await world.call('GET', `/v1/decisions?run=${thread}`);
    expect(page).to.deep.equal(direct.json);
    const text = await human(['decisions', 'list']);
    expect(text).to.contain('Keep the old file?').and.contain(thread);
    const answered = await json(['decisions', 'answer', id, '--choose', 'drop', '--reason', 'stale']);
    expect(answered).to.include({ object: 'decision_outcome', decision: id, kind: 'ask', words: 'Drop it: Delete the file.\nReason: stale' });
    expect((await world.ended(thread)).state).to.equal('done');
  });

  it('answers with --other; refuses a bad option by name on one line', async () => {
    const { thread, id } = await asking('Which name?');
    expect(await refused(['decisions', 'answer', id, '--choose', 'nope'], 1)).to.contain('BAD_OPTION');
    const text = await human(['decisions', 'answer', id, '--other', 'Call it notes-v2.']);
    expect(text).to.contain('Call it notes-v2.');
    expect((await world.ended(thread)).state).to.equal('done');
  });

  it('answers interactively: shows the options and reads the choice from stdin', async () => {
    const { thread, id } = await asking('Archive the thread?');
    const child = spawn(process.execPath, [LOOM_CLI, 'decisions', 'answer', id.slice(0, 16), '--url', world.server.url], { env: { ...process.env, LOOM_CONFIG: config, LOOM_TOKEN: world.owner.token } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdin.end('1\nno need to keep it\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).to.equal(0);
    expect(stdout).to.contain('Archive the thread?').and.contain('1) Keep it — Leave the file as it is.').and.contain('2) Drop it').and.contain('o) your own words');
    expect(stdout).to.contain('Keep it: Leave the file as it is.\nReason: no need to keep it');
    expect((await world.ended(thread)).state).to.equal('done');
  });
});
