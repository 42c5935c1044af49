/**
 * `loom blueprint` against a real server with auth required, as an
 * operator and a team would use it: keygen and trust a key, sign a
 * blueprint file, plan it, apply it with the reviewed hash; a wrong hash,
 * a missing --accept and a tampered file are refused and write nothing.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { InstanceKey } from '../../plugins/federation/index.js';
import { checkSignature, signBlueprint, type Blueprint } from '../../plugins/members/index.js';
import { keyFromSeed, signBlueprintObject } from '../../cli/commands/members/blueprint-key.js';
import { bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { LOOM_CLI, runLoom, type CliRun } from '../helpers/cli-run.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';
import { memberToolsPlugin, TOOL_READ } from '../members/member-tools-plugin.js';

const execute = promisify(execFile);

/** The offline subcommands (no --url). */
async function offline(args: string[]): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [LOOM_CLI, ...args], { env: { ...process.env, LOOM_CONFIG: '/nonexistent/loom-config.json' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('loom blueprint commands', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  let writer: Credential;
  let root: string;
  let config: string;

  const loom = (args: string[], who: Credential = writer) => runLoom(args, { url: server.url, config, token: who.token });
  async function json(args: string[], who?: Credential): Promise<Record<string, any>> {
    const result = await loom([...args, '--json'], who);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}${result.stdout}`).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, any>;
  }

  before(async () => {
    server = await startServer({ auth: { required: true }, plugins: [memberToolsPlugin] });
    admin = await bootstrapAdmin(server.url);
    writer = await createAccount(server.url, admin, 'team', ['records:read', 'records:write']);
    root = await mkdtemp(join(tmpdir(), 'loom-blueprint-cli-'));
    config = join(root, 'config.json');
  });
  after(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('signs as the server does: the same seed names the same did:key and signs the same bytes', () => {
    const seed = new Uint8Array(32).fill(3);
    const blueprint: Blueprint = { blueprint_version: 1, name: 'same', actors: [{ label: 'A' }] };
    expect(keyFromSeed(seed).did).to.equal(InstanceKey.fromSeed(seed).did);
    expect(signBlueprintObject(keyFromSeed(seed), { ...blueprint })).to.deep.equal(signBlueprint(InstanceKey.fromSeed(seed), blueprint));
  });

  it('keygen, trust, sign, plan, apply: the plan applied is the plan reviewed', async () => {
    const keyFile = join(root, 'signing-key');
    const made = await offline(['blueprint', 'keygen', keyFile, '--json']);
    expect(made.code, made.stderr).to.equal(0);
    const signer = JSON.parse(made.stdout).signer as string;
    expect(signer).to.match(/^did:key:z6Mk/);
    expect((await stat(keyFile)).mode & 0o777).to.equal(0o600);
    expect((await offline(['blueprint', 'keygen', keyFile])).code, 'a key is never overwritten').to.equal(1);

    const trusted = await json(['blueprint', 'trust', signer, '--note', 'cli test'], admin);
    expect(trusted.body).to.include({ topic: 'blueprint_signers', signer, note: 'cli test' });

    const file = join(root, 'team.json');
    const blueprint: Blueprint = {
      blueprint_version: 1,
      name: 'cli-team',
      prompts: { triage: 'You triage new issues.' },
      actors: [{ label: 'Triager', prompt: 'triage', work_loop: { model: 'gpt-5-mini', tools: [TOOL_READ], max_turns: 4 } }],
    };
    await writeFile(file, JSON.stringify(blueprint, null, 2));
    const signedFile = join(root, 'team.signed.json');
    const signed = await offline(['blueprint', 'sign', file, '--key', keyFile, '-o', signedFile]);
    expect(signed.code, signed.stderr).to.equal(0);
    expect(signed.stdout).to.contain(signer);
    const signedBlueprint = JSON.parse(await readFile(signedFile, 'utf8')) as Blueprint;
    expect(checkSignature(signedBlueprint)).to.deep.equal({ state: 'valid', signer });
    const toStdout = await offline(['blueprint', 'sign', file, '--key', keyFile]);
    expect(JSON.parse(toStdout.stdout)).to.deep.equal(signedBlueprint);

    const head = () => server.loom.engine.store.watermark();
    const before = await head();
    const plan = await json(['blueprint', 'plan', signedFile]);
    expect(plan).to.include({ object: 'blueprint_plan', applied: false, admitted_as: 'trusted_signer', signer });
    expect(plan.records.map((r: { role: string }) => r.role)).to.deep.equal(['prompt', 'definition', 'blueprint']);
    const text = (await loom(['blueprint', 'plan', signedFile])).stdout;
    expect(text).to.contain(`plan_hash: ${plan.plan_hash}`);
    expect(text).to.contain(`apply with: loom blueprint apply ${signedFile} --accept ${plan.plan_hash}`);
    expect(text).to.match(/\nTriager\s+created\s+did:sync:agent:triager-/);

    expect((await loom(['blueprint', 'apply', signedFile])).code, 'apply without --accept is a usage error').to.equal(2);
    const wrong = await loom(['blueprint', 'apply', signedFile, '--accept', 'a'.repeat(64), '--json']);
    expect(wrong.code).to.equal(1);
    expect(JSON.parse(wrong.stdout)).to.include({ code: 'PLAN_HASH_MISMATCH' });
    const tamperedFile = join(root, 'team.tampered.json');
    await writeFile(tamperedFile, JSON.stringify({ ...signedBlueprint, actors: [{ ...signedBlueprint.actors[0], work_loop: { model: 'gpt-5' } }] }));
    const tampered = await loom(['blueprint', 'plan', tamperedFile]);
    expect(tampered.code).to.equal(1);
    expect(tampered.stderr).to.contain('BLUEPRINT_UNSIGNED');
    expect(await head(), 'nothing written before apply').to.equal(before);

    const applied = await json(['blueprint', 'apply', signedFile, '--accept', plan.plan_hash]);
    expect(applied).to.include({ applied: true, plan_hash: plan.plan_hash });
    expect(applied.records).to.deep.equal(plan.records);
    const again = await loom(['blueprint', 'plan', signedFile]);
    expect(again.stdout).to.contain('records: none (already materialized as it is)');

    const removed = await json(['blueprint', 'trust', signer, '--remove'], admin);
    expect(removed.body).to.include({ trusted: false });
    expect((await loom(['blueprint', 'plan', signedFile])).stderr).to.contain('BLUEPRINT_UNSIGNED');
  });
});
