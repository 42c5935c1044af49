/**
 * The announcer and the listener over real multicast (224.0.0.251, on a free
 * port instead of 5353 so no other mDNS software on the machine takes part):
 * one Loom announces with --mdns-announce's options, another hears it, lists
 * it verified, and drops it at the goodbye sent when the first one stops.
 * Needs an interface that can multicast; without one it is skipped, and with
 * CI=true it fails instead (a machine dependency).
 */
import { expect } from 'chai';
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { get } from '../helpers/http-server.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';
import { until } from '../helpers/until.js';
import { localMulticastCheck } from '../../cli/commands/discovery/multicast-check.js';

async function freePort(kind: 'udp' | 'tcp'): Promise<number> {
  if (kind === 'tcp') {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

describe('mDNS discovery over real multicast: announcer to listener', function () {
  this.timeout(60_000);
  let announcer: StartedServer | null = null;
  let listener: StartedServer;

  before(function () {
    if (localMulticastCheck().outcome !== 'ok') {
      if (process.env['CI'] === 'true') throw new Error('no interface here can multicast: the mDNS multicast test needs one');
      this.skip();
    }
  });

  after(async () => {
    await announcer?.stop();
    await listener?.stop();
  });

  it('hears the announcement, verifies the manifest, and drops the peer at its goodbye', async () => {
    const mdnsPort = await freePort('udp');
    const httpPort = await freePort('tcp');
    const group = { address: '224.0.0.251', port: mdnsPort, queryIntervalMs: 500 };
    listener = await startServer({ federation: {}, discovery: { ...group } });
    const started = Date.now();
    announcer = await startServer({ port: httpPort, federation: {}, discovery: { ...group, listen: false, announce: true, endpoint: `http://127.0.0.1:${httpPort}`, instanceName: 'announcer-test', namespace: 'acme', handle: 'ann' } });
    const did = (await get(announcer.url, '/health')).json.instance_did;
    expect((await get(announcer.url, '/v1/capabilities')).json.capabilities).to.include({ 'discovery.mdns_announce': true });
    const seen = await until('announcer verified', 10_000, async () => {
      const peer = ((await get(listener.url, '/v1/discovery/mdns')).json.data as any[]).find((p) => p.instance === 'announcer-test');
      return peer?.verified ? peer : null;
    });
    expect(seen).to.include({ did, endpoint: `http://127.0.0.1:${httpPort}`, namespace: 'acme', handle: 'ann' });
    expect(seen.capabilities).to.include('handshake');
    expect(Date.now() - started).to.be.below(10_000);
    expect((await get(announcer.url, '/v1/discovery/mdns')).json.announcer).to.include({ enabled: true, announcing: true, instance: 'announcer-test' });
    await announcer.stop();
    announcer = null;
    await until('announcer gone at its goodbye', 2_000, async () => ((await get(listener.url, '/v1/discovery/mdns')).json.data as any[]).every((p) => p.instance !== 'announcer-test'));
  });
});
