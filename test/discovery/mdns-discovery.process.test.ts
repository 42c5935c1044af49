/**
 * Goal 8 of issue 35: discovery with a fake mDNS responder on loopback. The
 * listener is a real Loom in unicast mode (multicast-dns's own test harness:
 * datagrams to 127.0.0.1:<free port> instead of the 224.0.0.251 group, so the
 * test does not depend on the machine's multicast routing); the responder
 * sends DNS-SD answers with the same package; the peer it advertises is a
 * real `loom serve --federation` process whose signed manifest the listener
 * fetches. Listed within 1 s; verified only after the manifest verified (a
 * gate holds the manifest back); a DID the manifest does not name stays
 * unverified; gone after the TTL or at a goodbye; nothing written, no pair.
 */
import { createServer, type Server } from 'node:http';
import { createSocket } from 'node:dgram';
import { expect } from 'chai';
import makeMdns from 'multicast-dns';
import { get } from '../helpers/http-server.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';
import { until } from '../helpers/until.js';
import { encodeTxt, SERVICE_NAME } from '../../plugins/discovery/index.js';
import { randomBytes } from 'node:crypto';
import { InstanceKey } from '../../plugins/federation/index.js';

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

/** A fake responder: unsolicited DNS-SD answers (PTR, SRV, TXT, A) sent to the listener's port. */
function fakeResponder(listenerPort: number) {
  const mdns = makeMdns({ multicast: false, ip: '127.0.0.1', port: 0 });
  const to = { address: '127.0.0.1', port: listenerPort };
  const records = (name: string, ad: { did: string; url: string }, ttl: number) => {
    const fqdn = `${name}.${SERVICE_NAME}`;
    const txt = Object.entries(encodeTxt({ did: ad.did, endpoint: ad.url, namespace: 'acme/eng', handle: name, capabilities: ['handshake', 'sync_pairs'] })).map(([k, v]) => `${k}=${v}`);
    return {
      answers: [{ name: SERVICE_NAME, type: 'PTR' as const, ttl, data: fqdn }],
      additionals: [
        { name: fqdn, type: 'SRV' as const, ttl, data: { port: Number(new URL(ad.url).port), target: `${name}.local`, priority: 0, weight: 0 } },
        { name: fqdn, type: 'TXT' as const, ttl, data: txt },
        { name: `${name}.local`, type: 'A' as const, ttl, data: '127.0.0.1' },
      ],
    };
  };
  return {
    announce: (name: string, ad: { did: string; url: string }, ttl: number) => new Promise<void>((resolve, reject) => mdns.respond(records(name, ad, ttl), to, (error: Error | null) => (error ? reject(error) : resolve()))),
    goodbye: (name: string, ad: { did: string; url: string }) => new Promise<void>((resolve, reject) => mdns.respond(records(name, ad, 0), to, (error: Error | null) => (error ? reject(error) : resolve()))),
    close: () => new Promise<void>((resolve) => mdns.destroy(() => resolve())),
  };
}

/** An HTTP front for the peer that holds /.well-known/service until released: "verified" cannot come before the manifest. */
async function gatedFront(target: string): Promise<{ url: string; release: () => void; requests: () => number; close: () => Promise<void> }> {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let count = 0;
  const server: Server = createServer((req, res) => {
    count++;
    void released
      .then(async () => {
        const answer = await fetch(`${target}${req.url}`);
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, release: () => release(), requests: () => count, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('mDNS discovery (issue 35, goal 8): a fake responder on loopback, a real peer', function () {
  this.timeout(60_000);
  let peer: LoomProcess;
  let peerDid: string;
  let listener: StartedServer;
  let responder: ReturnType<typeof fakeResponder>;
  let watermark: unknown;

  const peers = async () => {
    const answer = await get(listener.url, '/v1/discovery/mdns');
    expect(answer.status, answer.text).to.equal(200);
    return answer.json;
  };
  const find = async (instance: string) => ((await peers()).data as any[]).find((p) => p.instance === instance) ?? null;

  before(async () => {
    peer = await startLoomProcess({ args: ['--federation', '--no-mdns'] });
    peerDid = (await get(peer.url, '/health')).json.instance_did;
    const port = await freeUdpPort();
    listener = await startServer({ federation: {}, discovery: { multicast: false, address: '127.0.0.1', port } });
    responder = fakeResponder(port);
    watermark = await listener.loom.engine.store.watermark();
  });

  after(async () => {
    await responder?.close();
    await listener?.stop();
    await peer?.stop();
    await peer?.remove();
  });

  it('reports the listener, its interface and the capability', async () => {
    const body = await peers();
    expect(body).to.include({ object: 'mdns_discovery', service: '_loom._tcp.local' });
    expect(body.listener).to.include({ enabled: true, listening: true, multicast: false, address: '127.0.0.1', error: null });
    expect(body.listener.interfaces).to.deep.equal([{ name: 'unicast', address: '127.0.0.1', internal: true, multicast: false }]);
    expect(body.announcer).to.include({ enabled: false, announcing: false });
    expect((await get(listener.url, '/v1/capabilities')).json.capabilities).to.include({ 'discovery.mdns': true, 'discovery.mdns_announce': false });
  });

  it('lists an announced peer within 1 s, and marks it verified only after its manifest verified', async () => {
    const front = await gatedFront(peer.url);
    try {
      const sent = Date.now();
      await responder.announce('alpha', { did: peerDid, url: front.url }, 60);
      const listed = await until('alpha listed', 1000, () => find('alpha'));
      expect(Date.now() - sent).to.be.below(1000);
      expect(listed).to.include({ did: peerDid, endpoint: front.url, namespace: 'acme/eng', handle: 'alpha', verified: false });
      expect(listed.capabilities).to.deep.equal(['handshake', 'sync_pairs']);
      expect(Date.parse(listed.last_seen)).to.be.within(sent - 1000, Date.now());
      // The manifest is held back: whatever the listener does meanwhile, the peer is not verified.
      await until('manifest fetched', 2000, async () => front.requests() > 0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await find('alpha')).to.include({ verified: false });
      expect((await find('alpha')).verification.state).to.equal('checking');
      front.release();
      const verified = await until('alpha verified', 3000, async () => ((await find('alpha'))?.verified ? await find('alpha') : null));
      expect(verified.verification).to.include({ state: 'verified', reason: null });
    } finally {
      await front.close();
    }
  });

  it('keeps a peer whose manifest does not name the advertised DID unverified', async () => {
    const impostor = InstanceKey.fromSeed(randomBytes(32)).did;
    await responder.announce('mallory', { did: impostor, url: peer.url }, 60);
    const failed = await until('mallory checked', 3000, async () => ((await find('mallory'))?.verification.state === 'failed' ? await find('mallory') : null));
    expect(failed).to.include({ did: impostor, verified: false });
    expect(failed.verification.reason).to.equal('manifest_did_mismatch');
    // Announcing again changes nothing: still unverified.
    await responder.announce('mallory', { did: impostor, url: peer.url }, 60);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await find('mallory')).to.include({ verified: false });
  });

  it('drops a peer once its TTL ran out, and keeps one that announces again', async () => {
    await responder.announce('brief', { did: peerDid, url: peer.url }, 1);
    const seen = await until('brief listed', 1000, () => find('brief'));
    expect(seen.ttl_seconds).to.equal(1);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await find('brief'), 'before its TTL').to.not.equal(null);
    await until('brief expired', 1500, async () => (await find('brief')) === null);
    expect(Date.now() - Date.parse(seen.last_seen)).to.be.within(1000, 1800);
    // Announced again before each TTL runs out: it stays, with last_seen moving on.
    await responder.announce('steady', { did: peerDid, url: peer.url }, 1);
    const first = await until('steady listed', 1000, () => find('steady'));
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await responder.announce('steady', { did: peerDid, url: peer.url }, 1);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const later = await find('steady');
    expect(later, 'still announced').to.not.equal(null);
    expect(Date.parse(later.last_seen)).to.be.above(Date.parse(first.last_seen) + 1000);
  });

  it('drops a peer at its goodbye', async () => {
    await responder.announce('leaving', { did: peerDid, url: peer.url }, 60);
    await until('leaving listed', 1000, () => find('leaving'));
    const sent = Date.now();
    await responder.goodbye('leaving', { did: peerDid, url: peer.url });
    await until('leaving gone', 1000, async () => (await find('leaving')) === null);
    expect(Date.now() - sent).to.be.below(1000);
  });

  it('never creates a pair and writes nothing', async () => {
    expect(await listener.loom.engine.store.watermark()).to.deep.equal(watermark);
    const syncPairs = (await get(listener.url, '/v1/sync/pairs')).json;
    expect(syncPairs.data ?? syncPairs).to.deep.equal([]);
    expect((await get(listener.url, '/v1/federation/pairs')).json.data).to.deep.equal([]);
  });
});

describe('mDNS discovery switched off', function () {
  this.timeout(30_000);
  it('does not listen, and the capability says so', async () => {
    const server = await startServer({ federation: {}, discovery: { listen: false } });
    try {
      const body = (await get(server.url, '/v1/discovery/mdns')).json;
      expect(body.listener).to.include({ enabled: false, listening: false });
      expect(body.listener.interfaces).to.deep.equal([]);
      expect(body.data).to.deep.equal([]);
      expect((await get(server.url, '/v1/capabilities')).json.capabilities).to.include({ 'discovery.mdns': false });
    } finally {
      await server.stop();
    }
  });
});
