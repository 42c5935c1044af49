/**
 * `loom federation keys|rotate-key` against a real server with federation
 * (in-process, loopback HTTP), the built CLI as a child process: text and
 * --json output, the overlap duration, a refusal as one line on stderr, and
 * the manifest that announces the rotation.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { get, startServer, type StartedServer } from '../helpers/http-server.js';
import { verifyManifest } from '../../plugins/federation/manifest.js';

const LOOM = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const run = promisify(execFile);

describe('loom federation keys and rotate-key', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let root: string;

  async function loom(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: join(root, 'config.json') };
    delete env['LOOM_URL'];
    delete env['LOOM_TOKEN'];
    try {
      const { stdout, stderr } = await run(process.execPath, [LOOM, ...args, '--url', server.url], { env });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-keys-'));
    server = await startServer({ federation: {} });
  });
  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('keys shows the DID and the key in force; rotate-key hands over with the overlap asked for; the manifest announces it', async () => {
    const before = await loom(['federation', 'keys']);
    expect(before.code, before.stderr).to.equal(0);
    const did = /^did\s+(\S+)$/m.exec(before.stdout)![1]!;
    expect(before.stdout).to.match(new RegExp(`^key\\s+${did}$`, 'm'));
    expect(before.stdout).to.match(/^overlap\s+604800s by default$/m);

    const rotated = await loom(['federation', 'rotate-key', '--overlap', '2h']);
    expect(rotated.code, rotated.stderr).to.equal(0);
    expect(rotated.stdout).to.match(new RegExp(`^key\\s+did:key:z\\S+ \\(rotated from ${did}\\)$`, 'm'));
    expect(rotated.stdout).to.match(new RegExp(`^previous\\s+${did}  valid until \\S+Z$`, 'm'));

    const keys = JSON.parse((await loom(['federation', 'keys', '--json'])).stdout);
    expect(keys).to.include({ object: 'federation_keys', did, rotatable: true });
    expect(keys.previous).to.have.length(1);
    const link = keys.previous[0];
    expect(link).to.include({ key: did, succeeded_by: keys.key, state: 'overlap' });
    expect(link.expired_ts - Date.parse(link.rotated_at)).to.equal(2 * 3_600_000);

    const manifest = (await get(server.url, '/.well-known/service')).json.federation_manifest;
    const verdict = verifyManifest(manifest, { now: Date.now(), strict: true, expectedDid: did, pinned: did });
    expect(verdict.ok, verdict.ok ? '' : verdict.message).to.equal(true);
    expect(manifest.keys.current).to.equal(keys.key);
  });

  it('refuses an overlap outside 1 s to 90 days before calling the server', async () => {
    for (const overlap of ['0s', '91d', 'soon']) {
      const refused = await loom(['federation', 'rotate-key', '--overlap', overlap]);
      expect(refused.code).to.equal(2);
      expect(refused.stderr.trim().split('\n')).to.have.length(1);
      expect(refused.stderr).to.match(/^loom: --overlap is a duration/);
    }
  });
});
