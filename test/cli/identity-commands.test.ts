/**
 * The identity commands of the CLI (invite, members, grant, self, recover)
 * against a real server with auth required: the built `loom` runs as a child
 * process with its own config file, as an operator and a member would use it.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECREDENTIAL_REFUSED_MESSAGE } from '../../plugins/auth/recredential-door.js';
import { bootstrapAdmin, type Credential } from '../helpers/auth.js';
import { runLoom, type CliRun } from '../helpers/cli-run.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';


describe('loom identity commands (invite, members, grant, self, recover)', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  let root: string;
  let config: string;

  /** Runs the CLI with --url and this test's config file; LOOM_TOKEN only when given. */
  const loom = (args: string[], env: { LOOM_TOKEN?: string } = {}): Promise<CliRun> => runLoom(args, { url: server.url, config, ...(env.LOOM_TOKEN !== undefined ? { token: env.LOOM_TOKEN } : {}) });
  async function json(args: string[], env?: { LOOM_TOKEN?: string }): Promise<Record<string, any>> {
    const result = await loom([...args, '--json'], env);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, any>;
  }
  const asAdmin = () => ({ LOOM_TOKEN: admin.token });
  const savedEntry = async () => (JSON.parse(await readFile(config, 'utf8')) as { servers: Record<string, { token: string; service_account_id: string }> }).servers[server.url];

  let inviteId: string;
  let inviteToken: string;
  let member: Record<string, any>;
  let code: string;
  let grantId: string;

  before(async () => {
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
    root = await mkdtemp(join(tmpdir(), 'loom-identity-cli-'));
    config = join(root, 'loom', 'config.json');
  });

  after(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('invite create (admin, via LOOM_TOKEN) prints the invite token once; invite list shows it', async () => {
    const created = await json(['invite', 'create', '--preset', 'contributor', '--note', 'for alice'], asAdmin());
    expect(created).to.include({ object: 'invite', state: 'active', max_uses: 1, uses: 0 });
    expect(created.membership).to.include({ preset: 'contributor' });
    expect(created.invite_token).to.be.a('string');
    inviteId = created.invite_id;
    inviteToken = created.invite_token;

    const listed = await json(['invite', 'list', '--token', admin.token]);
    expect(listed.data.map((i: { invite_id: string }) => i.invite_id)).to.include(inviteId);
    expect(listed.data[0]).to.not.have.property('invite_token');

    const refused = await loom(['invite', 'create', '--preset', 'reader', '--scopes', 'records:read'], asAdmin());
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain('--preset or --scopes');
  });

  it('invite redeem --save makes a member and saves its token, owner-only', async () => {
    member = await json(['invite', 'redeem', inviteToken, '--label', 'alice', '--save']);
    expect(member).to.include({ object: 'membership', label: 'alice', principal: 'did:sync:user:alice', config_path: config, saved: true, renewed: false });
    expect(member.scopes).to.have.members(['records:read', 'records:write']);
    expect((await stat(config)).mode & 0o777).to.equal(0o600);
    expect(await savedEntry()).to.include({ token: member.token, service_account_id: member.sa_id });

    const again = await loom(['invite', 'redeem', inviteToken, '--label', 'bob']);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/^loom: INVITE_EXHAUSTED \(410\): /);
  });

  it('self shows the member; self bind-code prints a recovery code once', async () => {
    const me = await json(['self']);
    expect(me).to.include({ object: 'self', principal: 'did:sync:user:alice', label: 'alice', standing: 'member' });
    expect(me.bindings.recovery_code).to.equal(false);
    const bound = await json(['self', 'bind-code']);
    expect(bound).to.include({ object: 'binding', kind: 'recovery_code', principal: 'did:sync:user:alice' });
    expect(bound.secret).to.be.a('string').with.length(26);
    code = bound.secret;
    const human = await loom(['self']);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.contain('did:sync:user:alice (member alice): member').and.to.contain('bound proofs: recovery_code');
  });

  it('recover with the code saves a new token; the same code a second time is refused', async () => {
    const before = await savedEntry();
    const recovered = await json(['recover', 'alice', '--code', code]);
    expect(recovered).to.include({ object: 'recredential', principal: 'did:sync:user:alice', label: 'alice', rebind_required: true, saved: true, config_path: config });
    expect(recovered.token).to.not.equal(before!.token);
    expect(await savedEntry()).to.include({ token: recovered.token, service_account_id: recovered.sa_id });
    expect((await stat(config)).mode & 0o777).to.equal(0o600);
    // The saved (new) token works.
    expect(await json(['self'])).to.include({ label: 'alice', standing: 'member' });

    const spent = await loom(['recover', 'alice', '--code', code]);
    expect(spent.code).to.not.equal(0);
    expect(spent.stderr).to.contain('RECREDENTIAL_REFUSED').and.to.contain(RECREDENTIAL_REFUSED_MESSAGE);
    expect(spent.stderr).to.not.contain('    at ').and.to.not.contain('[token from');
    expect((await savedEntry())!.token).to.equal(recovered.token);
  });

  it('members list: the admin sees alice, alice sees only herself', async () => {
    const all = await json(['members', 'list'], asAdmin());
    const alice = all.data.find((m: { label: string }) => m.label === 'alice');
    expect(alice).to.include({ object: 'member', did: 'did:sync:user:alice', state: 'active', via: 'invite', grant_id: member.grant_id });
    const own = await json(['members', 'list']);
    expect(own.data.map((m: { label: string }) => m.label)).to.deep.equal(['alice']);
    const table = await loom(['members', 'list'], asAdmin());
    expect(table.stdout).to.match(/^label\s+did\s+state/).and.to.contain('alice');
  });

  it('grant issue (as the member) delegates from its membership grant; grant list shows it', async () => {
    const issued = await json(['grant', 'issue', '--aud', 'did:sync:agent:bot', '--scopes', 'records:read', '--max-depth', '0', '--ttl', '3600', '--note', 'bot', '--token-for-aud']);
    expect(issued).to.include({ object: 'grant', iss: 'did:sync:user:alice', aud: 'did:sync:agent:bot', standing: 'in_force', depth: 1 });
    expect(issued.chain).to.deep.equal([member.grant_id]);
    expect(issued.scopes).to.deep.equal(['records:read']);
    expect(issued.caveats).to.deep.equal({ max_depth: 0 });
    expect(issued.token).to.be.a('string');
    grantId = issued.grant_id;

    const listed = await json(['grant', 'list']);
    const row = listed.value.grants.find((g: { grant_id: string }) => g.grant_id === grantId);
    expect(row).to.include({ aud: 'did:sync:agent:bot', standing: 'in_force' });
    const table = await loom(['grant', 'list']);
    expect(table.code, table.stderr).to.equal(0);
    expect(table.stdout).to.contain(grantId.slice(0, 12)).and.to.contain('did:sync:agent:bot').and.to.contain('in_force');

    const wider = await loom(['grant', 'issue', '--aud', 'did:sync:agent:bot', '--scopes', 'admin']);
    expect(wider.code).to.equal(1);
    expect(wider.stderr).to.match(/^loom: GRANT_REFUSED \(422\): /);
  });

  it('grant revoke prints what the revocation reached', async () => {
    const revoked = await json(['grant', 'revoke', grantId, '--note', 'done']);
    expect(revoked).to.include({ object: 'grant_revocation', grant_id: grantId, standing: 'revoked', note: 'done', grants_revoked: 1, credentials_revoked: 1 });
    const human = await loom(['grant', 'revoke', grantId]);
    expect(human.code, human.stderr).to.equal(0);
    expect(human.stdout).to.contain(`revoked grant ${grantId}: grants_revoked 1, credentials_revoked 1`);
  });

  it('members revoke cascades, and the member\'s saved token is refused after', async () => {
    const revoked = await json(['members', 'revoke', 'alice', '--note', 'left'], asAdmin());
    expect(revoked).to.include({ object: 'member', label: 'alice', state: 'revoked' });
    expect(revoked.grants_revoked).to.be.at.least(2);
    expect(revoked.credentials_revoked).to.be.at.least(2);
    const dead = await loom(['self']);
    expect(dead.code).to.equal(1);
    expect(dead.stderr).to.match(/^loom: GRANT_REVOKED \(401\): .*\[token from .*config\.json\]/);
  });

  it('invite revoke; usage errors exit 2', async () => {
    const created = await json(['invite', 'create', '--scopes', 'records:read', '--label', 'carol', '--ttl', '600'], asAdmin());
    expect(created.membership).to.include({ label: 'carol' });
    const revoked = await json(['invite', 'revoke', created.invite_id], asAdmin());
    expect(revoked).to.include({ invite_id: created.invite_id, state: 'revoked' });
    const redeem = await loom(['invite', 'redeem', created.invite_token]);
    expect(redeem.code).to.equal(1);
    expect(redeem.stderr).to.match(/^loom: INVITE_REVOKED \(410\): /);
    // Refused before any request: an option of another subcommand, a missing argument or option.
    const usage = await Promise.all([
      loom(['grant', 'list', '--save']),
      loom(['grant', 'revoke']),
      loom(['recover', 'alice']),
      loom(['members', 'adopt', 'dave'], asAdmin()),
      loom(['invite', 'redeem', 'x', '--token', admin.token]),
    ]);
    expect(usage.map((r) => r.code)).to.deep.equal([2, 2, 2, 2, 2]);
  });

  it('every identity command answers --help with its usage', async () => {
    const all = [['invite', '--help'], ['invite', 'create', '--help'], ['members', '--help'], ['grant', 'issue', '--help'], ['self', '--help'], ['self', 'bind-code', '--help'], ['recover', '--help']];
    const helps = await Promise.all(all.map((args) => loom(args)));
    helps.forEach((help, i) => {
      expect(help.code, `${all[i]!.join(' ')}: ${help.stderr}`).to.equal(0);
      expect(help.stdout, all[i]!.join(' ')).to.match(/^loom /);
    });
  });
});
