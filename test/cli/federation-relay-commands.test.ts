/**
 * `loom federation relay serve|set|clear|status` against two real servers with
 * federation (in-process, loopback HTTP), the built CLI as a child process:
 * text and --json output, and refusals as one line on stderr with the
 * server's code. The relay itself is exercised by
 * test/federation/relay.process.test.ts.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startServer, type StartedServer } from '../helpers/http-server.js';

const LOOM = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const run = promisify(execFile);

describe('loom federation relay commands', function () {
  this.timeout(90_000);
  let a: StartedServer;
  let relay: StartedServer;
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

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-relay-'));
    [a, relay] = await Promise.all([startServer({ federation: {} }), startServer({ federation: {} })]);
  });
  after(async () => {
    await a?.stop();
    await relay?.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('serve on/off, set and clear the relay, status in text and --json', async () => {
    const off = await ok(relay.url, ['federation', 'relay', 'status']);
    expect(off).to.match(/^serving\s+off$/m);
    expect(await ok(relay.url, ['federation', 'relay', 'serve', 'on', '--max-envelopes', '500', '--ttl', '7d'])).to.equal('serving mailboxes: on\n');
    const serving = JSON.parse(await ok(relay.url, ['federation', 'relay', 'status', '--json']));
    expect(serving.serving).to.deep.include({ enabled: true, max_envelopes: 500, ttl_seconds: 7 * 86_400 });

    expect(await ok(a.url, ['federation', 'relay', 'set', relay.url, '--silence', '15m', '--poll-interval', '10s'])).to.equal(`relay for all: ${relay.url}\n`);
    const status = JSON.parse(await ok(a.url, ['federation', 'relay', 'status', '--json']));
    expect(status.relays).to.deep.equal([{ url: relay.url, for_pair: 'all', silence_ms: 900_000, poll_interval_ms: 10_000 }]);
    expect(await ok(a.url, ['federation', 'relay', 'status'])).to.match(/^relay\s+for\s+silence ms\s+poll ms$/m);
    // a's own mailbox is polled at the relay at once: nothing waits there yet.
    const polled = JSON.parse(await ok(a.url, ['federation', 'relay', 'status', '--json']));
    expect(polled.receiving.length).to.be.at.most(1);
    expect(await ok(a.url, ['federation', 'relay', 'clear'])).to.equal('relay for all: off\n');
    expect(JSON.parse(await ok(a.url, ['federation', 'relay', 'status', '--json'])).relays).to.deep.equal([]);
  });

  it('refuses bad arguments before calling the server', async () => {
    const bad = await loom(a.url, ['federation', 'relay', 'serve', 'maybe']);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.match(/serve takes on or off/);
    const none = await loom(a.url, ['federation', 'relay', 'clear']);
    expect(none.code).to.not.equal(0);
    expect(none.stderr).to.match(/no relay is set for all/);
  });
});
