/**
 * `loom federation pause|resume|refresh|set-mode|set-poll-interval|notify-revoke`
 * against two real servers with federation (in-process, loopback HTTP), the
 * built CLI as a child process: text and --json output, durations, and
 * refusals as one line on stderr with the server's code.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { postJson, startServer, type StartedServer } from '../helpers/http-server.js';

const LOOM = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const run = promisify(execFile);

describe('loom federation lifecycle commands', function () {
  this.timeout(90_000);
  let a: StartedServer;
  let b: StartedServer;
  let root: string;
  let id = '';

  async function loom(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: join(root, 'config.json'), LOOM_ACTOR: 'did:sync:user:operator' };
    delete env['LOOM_URL'];
    delete env['LOOM_TOKEN'];
    try {
      const { stdout, stderr } = await run(process.execPath, [LOOM, ...args, '--url', url], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }
  async function ok(url: string, args: string[]): Promise<string> {
    const result = await loom(url, args);
    expect(result.code, `loom ${args.join(' ')}: ${result.stderr}`).to.equal(0);
    return result.stdout;
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-lifecycle-'));
    [a, b] = await Promise.all([startServer({ federation: {} }), startServer({ federation: {} })]);
    expect((await postJson(b.url, '/v1/config/federation_pairing', { default_posture: 'open' })).status).to.equal(201);
    const paired = JSON.parse(await ok(a.url, ['federation', 'pair', b.url, '--poll-interval', '30s', '--json']));
    expect(paired).to.include({ state: 'active', mode: 'polling', poll_interval_ms: 30_000 });
    id = paired.pair_id;
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('pause and resume, in text and --json', async () => {
    const paused = await ok(a.url, ['federation', 'pause', id]);
    expect(paused).to.match(/^state\s+paused since /m);
    expect(JSON.parse(await ok(a.url, ['federation', 'show', id, '--json'])).state).to.equal('paused');
    expect(JSON.parse(await ok(a.url, ['federation', 'resume', id, '--json'])).state).to.equal('active');
  });

  it('set-mode and set-poll-interval with durations', async () => {
    expect(await ok(a.url, ['federation', 'set-mode', id, 'on-demand'])).to.match(/^mode\s+on-demand$/m);
    expect(JSON.parse(await ok(a.url, ['federation', 'set-mode', id, 'polling', '--json'])).mode).to.equal('polling');
    expect(await ok(a.url, ['federation', 'set-poll-interval', id, '5m'])).to.match(/^mode\s+polling every 5m$/m);
    expect(JSON.parse(await ok(a.url, ['federation', 'set-poll-interval', id, '90s', '--json'])).poll_interval_ms).to.equal(90_000);
    expect((await loom(a.url, ['federation', 'set-mode', id, 'push'])).stderr).to.match(/--mode must be one of/);
    expect((await loom(a.url, ['federation', 'set-poll-interval', id, '5'])).stderr).to.match(/1s to 1d/);
    expect((await loom(a.url, ['federation', 'set-poll-interval', id])).code).to.not.equal(0);
  });

  it('refresh verifies the manifest; notify-revoke only after a revocation', async () => {
    expect(await ok(a.url, ['federation', 'refresh', id])).to.match(/^manifest\s+unchanged; verified$/m);
    const early = await loom(a.url, ['federation', 'notify-revoke', id]);
    expect(early.code).to.not.equal(0);
    expect(early.stderr).to.contain('PAIR_STATE_CONFLICT');
    await ok(a.url, ['federation', 'revoke', id]);
    const told = JSON.parse(await ok(a.url, ['federation', 'notify-revoke', id, '--json']));
    expect(told).to.include({ state: 'revoked', peer_notified: true });
    const refused = await loom(a.url, ['federation', 'pause', id]);
    expect(refused.stderr).to.contain('PAIR_REVOKED');
    expect(refused.stderr.trim().split('\n')).to.have.length(1);
  });
});
