/**
 * `loom discovery list` and `loom doctor`'s multicast lines against real
 * servers (in-process, loopback HTTP), the built CLI as a child process: a
 * listener in unicast mode hears a fake responder advertising a real peer,
 * and the CLI shows it verified; a server without federation says how to
 * turn it on.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import makeMdns from 'multicast-dns';
import { get, startServer, type StartedServer } from '../helpers/http-server.js';
import { until } from '../helpers/until.js';
import { encodeTxt, SERVICE_NAME } from '../../plugins/discovery/index.js';

const LOOM = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const run = promisify(execFile);

describe('loom discovery list and the doctor multicast check', function () {
  this.timeout(60_000);
  let peer: StartedServer;
  let listener: StartedServer;
  let plain: StartedServer;
  let root: string;

  async function loom(url: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: join(root, 'config.json') };
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

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-discovery-cli-'));
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    const port = socket.address().port;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    peer = await startServer({ federation: {}, discovery: { listen: false } });
    listener = await startServer({ federation: {}, discovery: { multicast: false, address: '127.0.0.1', port } });
    plain = await startServer();
    const did = (await get(peer.url, '/health')).json.instance_did;
    const mdns = makeMdns({ multicast: false, ip: '127.0.0.1', port: 0 });
    const fqdn = `peer-one.${SERVICE_NAME}`;
    const txt = Object.entries(encodeTxt({ did, endpoint: peer.url, namespace: 'acme', handle: 'peer-one', capabilities: [] })).map(([k, v]) => `${k}=${v}`);
    await new Promise<void>((resolve) =>
      mdns.respond(
        {
          answers: [{ name: SERVICE_NAME, type: 'PTR', ttl: 60, data: fqdn }],
          additionals: [
            { name: fqdn, type: 'SRV', ttl: 60, data: { port: Number(new URL(peer.url).port), target: 'peer-one.local' } },
            { name: fqdn, type: 'TXT', ttl: 60, data: txt },
          ],
        },
        { address: '127.0.0.1', port },
        () => resolve(),
      ),
    );
    await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
    await until('peer verified', 5000, async () => (await get(listener.url, '/v1/discovery/mdns')).json.data[0]?.verified === true);
  });

  after(async () => {
    await Promise.all([peer?.stop(), listener?.stop(), plain?.stop()]);
    await rm(root, { recursive: true, force: true });
  });

  it('lists the verified peer, as JSON and as a table with the listener line', async () => {
    const json = await loom(listener.url, ['discovery', 'list', '--json']);
    expect(json.code, json.stderr).to.equal(0);
    const body = JSON.parse(json.stdout);
    expect(body.data).to.have.length(1);
    expect(body.data[0]).to.include({ instance: 'peer-one', endpoint: peer.url, namespace: 'acme', verified: true });
    const text = await loom(listener.url, ['discovery', 'list']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.contain('listener: unicast 127.0.0.1:').and.to.contain('announcer: off').and.to.match(/peer-one\s+yes\s+did:key:/);
  });

  it('says how to turn federation on where it is off', async () => {
    const off = await loom(plain.url, ['discovery', 'list']);
    expect(off.code).to.equal(1);
    expect(off.stderr).to.contain('federation is off');
  });

  it('doctor reports multicast on this machine and the server listener', async () => {
    const doctor = await loom(listener.url, ['doctor', '--data-dir', listener.dataDir, '--json']);
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ check: string; outcome: string; detail: string }> };
    const byName = Object.fromEntries(report.checks.map((c) => [c.check, c]));
    expect(byName['multicast']!.outcome).to.be.oneOf(['ok', 'warn']);
    expect(byName['multicast']!.detail).to.match(/^(mDNS can use|multicast unavailable)/);
    expect(byName['mdns listener']).to.include({ outcome: 'ok' });
    expect(byName['mdns listener']!.detail).to.contain('1 peer(s) seen, 1 verified');
  });
});
