/**
 * `loom federation pair|list|show|approve|revoke` against two real servers
 * with federation (in-process, loopback HTTP), the built CLI as a child
 * process: pairing by URL with no copied token (auto-approved, then with the
 * peer's operator approving), listing, revoking with the peer told, and
 * refusals as one line on stderr with the server's code.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { get, postJson, startServer, type StartedServer } from '../helpers/http-server.js';

const LOOM = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const run = promisify(execFile);

describe('loom federation commands (the signed handshake)', function () {
  this.timeout(90_000);
  let a: StartedServer;
  let b: StartedServer;
  let root: string;

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
  const posture = async (server: StartedServer, value: string) => expect((await postJson(server.url, '/v1/config/federation_pairing', { default_posture: value })).status).to.equal(201);

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-handshake-'));
    [a, b] = await Promise.all([startServer({ federation: { handshakePollMs: 100 } }), startServer({ federation: {} })]);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('pair <url> --json pairs at once with an open peer; list and show; revoke tells the peer', async () => {
    await posture(b, 'open');
    const paired = JSON.parse(await ok(a.url, ['federation', 'pair', b.url, '--mode', 'polling', '--json']));
    expect(paired).to.include({ object: 'federation_pair', state: 'active', role: 'initiator', mode: 'polling' });
    expect(JSON.stringify(paired)).not.to.match(/loom_prod_sa_/);
    const id = paired.pair_id as string;
    expect(await ok(b.url, ['federation', 'list'])).to.match(new RegExp(`^pair .*\\n${id} +active +responder `));
    expect(await ok(b.url, ['federation', 'show', id])).to.match(/state\s+active\n/);

    const revoked = await ok(a.url, ['federation', 'revoke', id, '--reason', 'done with it']);
    expect(revoked).to.match(/state\s+revoked\n/);
    expect(revoked).to.match(/peer told\s+yes/);
    expect(JSON.parse(await ok(b.url, ['federation', 'show', id, '--json']))).to.include({ state: 'revoked', revoked_by: 'peer', revoked_reason: 'done with it' });
  });

  it('pair waits for the peer operator; approve on the peer makes both sides active', async () => {
    await posture(b, 'pair-then-ask');
    const waiting = await ok(a.url, ['federation', 'pair', b.url]);
    expect(waiting).to.match(/state\s+establishing\n/);
    const id = /pair\s+(fed_[0-9a-f]{32})/.exec(waiting)![1]!;
    expect(waiting).to.contain(`loom federation approve ${id}`);
    expect(await ok(b.url, ['federation', 'approve', id])).to.match(/state\s+active\n/);
    for (let i = 0; i < 40 && (await get(a.url, `/v1/federation/pairs/${id}`)).json.state !== 'active'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await get(a.url, `/v1/federation/pairs/${id}`)).json.state).to.equal('active');
  });

  it('refuses with the server code on one line: an unknown pair, a closed peer, bad arguments', async () => {
    const unknown = await loom(b.url, ['federation', 'approve', `fed_${'0'.repeat(32)}`]);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.match(/^loom: .*PAIR_NOT_FOUND \(404\)/);
    await posture(b, 'closed');
    const closed = await loom(a.url, ['federation', 'pair', b.url]);
    expect(closed.code).to.equal(1);
    expect(closed.stderr).to.match(/^loom: .*PAIR_REQUESTS_CLOSED \(403\)/);
    expect(closed.stderr).not.to.contain('    at ');
    const bad = await loom(a.url, ['federation', 'pair']);
    expect(bad.code).to.equal(2);
    expect((await loom(a.url, ['federation', 'pair', b.url, '--mode', 'push'])).stderr).to.match(/--mode must be one of/);
  });
});
