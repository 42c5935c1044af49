/**
 * `loom actors define|patch|history|revert|retire|roster|workspace|show`
 * against a real server with auth required: the built CLI as a child
 * process with a writer's token, the way a team lead shapes a member.
 */
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { runLoom } from '../helpers/cli-run.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';

describe('loom actors: the member doors', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let writer: Credential;
  let root: string;
  let config: string;

  const loom = (args: string[]) => runLoom(args, { url: server.url, config, token: writer.token });
  async function json(args: string[]): Promise<Record<string, any>> {
    const result = await loom([...args, '--json']);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, any>;
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-member-cli-'));
    config = join(root, 'config.json');
    server = await startServer({ auth: { required: true } });
    const admin = await bootstrapAdmin(server.url);
    writer = await createAccount(server.url, admin, 'lead', ['records:read', 'records:write']);
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('defines from flags and a file, patches, shows history, reverts, lists and retires', async () => {
    const file = join(root, 'reviewer.json');
    await writeFile(file, JSON.stringify({ brief: 'reviews changes', work_loop: { max_turns: 4 } }));
    const defined = await json(['actors', 'define', 'Reviewer', '--file', file, '--model', 'claude-haiku-4-5', '--budget', '2.5', '--tools', 'read_thread,write_record', '--approval-required', 'write_record']);
    expect(defined.actor_did).to.match(/^did:sync:agent:reviewer-/);
    const did = defined.actor_did as string;
    const shown = await json(['actors', 'show', did]);
    expect(shown.member).to.include({ did, brief: 'reviews changes', max_turns: 4, budget_usd: 2.5, model: 'claude-haiku-4-5' });
    expect(shown.member.approval_required).to.deep.equal(['write_record']);
    const patched = await json(['actors', 'patch', did, '--max-turns', '6', '--prompt', 'Be kind.']);
    expect(patched).to.include({ version: 2, max_turns: 6 });
    const history = await json(['actors', 'history', did]);
    expect(history.data.map((v: { changed: string[] }) => v.changed)).to.deep.equal([['prompt', 'max_turns'], ['created']]);
    const text = (await loom(['actors', 'history', did])).stdout;
    expect(text).to.match(/version\s+at\s+by/);
    const reverted = await json(['actors', 'revert', did, history.data[1].definition_record_id]);
    expect(reverted).to.include({ version: 3, max_turns: 4 });
    const roster = await json(['actors', 'roster']);
    expect(roster.data.map((e: { did: string }) => e.did)).to.include(did);
    const workspace = await json(['actors', 'workspace']);
    expect(workspace.assistants.map((a: { did: string }) => a.did)).to.deep.equal([did]);
    expect((await json(['actors', 'retire', did])).retired).to.equal(true);
    const refused = await loom(['actors', 'patch', did, '--max-turns', '3']);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.include('ACTOR_RETIRED');
    expect((await json(['actors', 'roster', '--active'])).data).to.deep.equal([]);
  });
});
