/**
 * `loom memories list|add|rm` and `loom actors export|import` against a real
 * server with auth required, the built `loom` run as a child process.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { runLoom, type CliRun } from '../helpers/cli-run.js';
import { request } from '../helpers/http-server.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';

describe('loom memories and loom actors export / import', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let root: string;
  let owner: Credential;
  let other: Credential;
  let member: string;
  let target: string;

  const loom = (args: string[], who: Credential = owner): Promise<CliRun> => runLoom(args, { url: server.url, config: join(root, 'config.json'), token: who.token });
  const json = async (args: string[], who?: Credential) => {
    const result = await loom([...args, '--json'], who);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout);
  };
  const define = async (who: Credential, label: string) => (await request(server.url, 'POST', '/v1/actors/define', { headers: bearer(who), json: { label } })).json.actor_did as string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-members-'));
    server = await startServer({ auth: { required: true } });
    const admin = await bootstrapAdmin(server.url);
    owner = await createAccount(server.url, admin, 'owner', ['records:read', 'records:write']);
    other = await createAccount(server.url, admin, 'other', ['records:read', 'records:write']);
    member = await define(owner, 'Reviewer');
    target = await define(other, 'reviewer');
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('adds, lists, filters and removes memories', async () => {
    const added = await loom(['memories', 'add', member, 'lint', '--type', 'skill', '--description', 'Run the linter first.', '--tags', 'review,ci', '--confidence', '0.9']);
    expect(added.code, added.stderr).to.equal(0);
    expect(added.stdout).to.match(/^added memory "lint" \(record [0-9a-f]{64}\)/);
    expect((await json(['memories', 'add', member, 'lead', '--type', 'user', '--description', 'Ada leads.', '--domain', 'people'])).status).to.equal('created');
    const replaced = await loom(['memories', 'add', member, 'lead', '--type', 'user', '--description', 'Ada leads the team.']);
    expect(replaced.stdout).to.match(/^replaced memory "lead"/);
    const table = await loom(['memories', 'list', member]);
    expect(table.stdout.split('\n')[0]).to.match(/^name\s+type\s+confidence\s+domain\s+tags\s+description/);
    expect(table.stdout).to.contain('ci,review');
    const skills = await json(['memories', 'list', member, '--type', 'skill']);
    expect(skills.data.map((m: { name: string }) => m.name)).to.deep.equal(['lint']);
    expect(skills.data[0]).to.include({ confidence: 0.9 });
    expect((await json(['memories', 'list', member, '--search', 'linter'])).data.map((m: { name: string }) => m.name)).to.deep.equal(['lint']);
    await json(['memories', 'add', member, 'scratch', '--type', 'insight', '--description', 'temporary']);
    expect((await loom(['memories', 'rm', member, 'scratch'])).stdout).to.match(/^cancelled memory "scratch"/);
    const gone = await loom(['memories', 'rm', member, 'scratch']);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.contain('MEMORY_NOT_FOUND (404)');
    const forbidden = await loom(['memories', 'list', member], other);
    expect(forbidden.stderr).to.contain('FORBIDDEN (403)');
    const usage = await loom(['memories', 'add', member, 'x', '--description', 'no type']);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.contain('--type');
  });

  it('exports to a file and imports it: a dry run first, then for real with merge', async () => {
    const file = join(root, 'reviewer.bundle.json');
    const written = await json(['actors', 'export', member, '--include-memories', '--out', file]);
    expect(written).to.include({ object: 'bundle_written', did: member, skills: 1, memories: 1 });
    const bundle = JSON.parse(await readFile(file, 'utf8'));
    expect(bundle.digest).to.equal(written.digest);
    const printed = JSON.parse((await loom(['actors', 'export', member])).stdout);
    expect(printed.memories).to.equal(undefined);
    const dry = await json(['actors', 'import', target, file, '--dry-run'], other);
    expect(dry).to.include({ dry_run: true, skills_imported: 1, memories_imported: 1, did: target });
    expect((await json(['memories', 'list', target], other)).data).to.deep.equal([]);
    const human = await loom(['actors', 'import', target, file, '--discount', '0.25'], other);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.match(/^imported into did:sync:agent:reviewer-/);
    expect(human.stdout).to.contain('1 skills, 1 other memories');
    const again = await loom(['actors', 'import', target, file], other);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.contain('IMPORT_FAILED (400)');
    expect(await json(['actors', 'import', target, file, '--merge'], other)).to.include({ memories_skipped: 2, skills_imported: 0 });
    const bad = await loom(['actors', 'import', target, file, '--discount', '2'], other);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('--discount');
  });
});
