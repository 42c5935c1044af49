/**
 * Which token the CLI sends when LOOM_TOKEN and the config file disagree:
 * a LOOM_TOKEN saved for another server is that server's, so the token saved
 * for --url goes instead; an unknown LOOM_TOKEN still wins, and its refusal
 * says that a saved token was passed over.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { bootstrapAdmin, type Credential } from '../helpers/auth.js';
import { runLoom } from '../helpers/cli-run.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';
import { saveServerToken } from '../../cli/kit/config.js';

describe('CLI token choice between LOOM_TOKEN and the config file', function () {
  this.timeout(60_000);
  let a: StartedServer;
  let b: StartedServer;
  let adminA: Credential;
  let adminB: Credential;
  let dir: string;
  let config: string;

  before(async () => {
    [a, b] = await Promise.all([startServer({ auth: { required: true } }), startServer({ auth: { required: true } })]);
    adminA = await bootstrapAdmin(a.url, 'sa_admin_a');
    adminB = await bootstrapAdmin(b.url, 'sa_admin_b');
    dir = await mkdtemp(join(tmpdir(), 'loom-token-choice-'));
    config = join(dir, 'config.json');
    await saveServerToken(config, a.url, adminA.token, adminA.serviceAccountId);
    await saveServerToken(config, b.url, adminB.token, adminB.serviceAccountId);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await rm(dir, { recursive: true, force: true });
  });

  it("sends the token saved for --url when LOOM_TOKEN is another server's saved token", async () => {
    const result = await runLoom(['whoami', '--json'], { url: b.url, config, token: adminA.token });
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout).service_account_id).to.equal('sa_admin_b');
  });

  it('sends LOOM_TOKEN when it is saved for this server or nowhere, and a refusal names both', async () => {
    const same = await runLoom(['whoami', '--json'], { url: a.url, config, token: adminA.token });
    expect(JSON.parse(same.stdout).service_account_id).to.equal('sa_admin_a');
    const stranger = await runLoom(['whoami'], { url: b.url, config, token: 'loom_prod_sa_x_notavalidsecretnotavalidsecret00' });
    expect(stranger.code).to.equal(1);
    expect(stranger.stderr).to.contain('AUTH_REQUIRED').and.to.contain('LOOM_TOKEN').and.to.contain(`not the token saved for ${b.url}`);
  });
});
