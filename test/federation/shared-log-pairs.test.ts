/**
 * Sync pairs on a shared PostgreSQL log: two servers of one instance (one
 * database, one instance key) with federation on, and a third instance as
 * the source, behind a proxy that counts the pulls. A pair created through
 * server 1 is listed by server 2; exactly one of them pulls it (the leader);
 * when the puller stops, the other takes the pair over from the shared
 * cursor with the sealed peer token, and pause/kick/delete through either
 * server reach the runner.
 */
import { expect } from 'chai';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InstanceKey, instanceKeyDir } from '../../plugins/federation/index.js';
import { TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import { bootstrapAdmin, createAccount } from '../helpers/auth.js';
import { get, newThread, postJson, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';
import type { ThrowawayCluster } from '../../storage/postgres/throwaway-cluster.js';

/** Forwards to `target`, noting every pull of the changes feed (its `since`). */
async function countingProxy(target: string): Promise<{ url: string; pulls: Array<{ since: string | null; thread: string | null; at: number }>; close(): Promise<void> }> {
  const pulls: Array<{ since: string | null; thread: string | null; at: number }> = [];
  const base = new URL(target);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    if (url.pathname === '/v1/sync/changes') pulls.push({ since: url.searchParams.get('since'), thread: url.searchParams.get('thread'), at: Date.now() });
    const upstream = httpRequest({ host: base.hostname, port: base.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    pulls,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Pages this server's runner of the pair pulled (0 where it does not run). */
async function pagesPulled(server: StartedServer, pairId: string): Promise<number> {
  const stats = await get(server.url, `/v1/sync/pairs/${pairId}/stats`);
  expect(stats.status, stats.text).to.equal(200);
  return stats.json.counters.pages as number;
}

describe('sync pairs on a shared PostgreSQL log', function () {
  this.timeout(180_000);
  let cluster: ThrowawayCluster;

  before(async function () {
    cluster = await clusterOrSkip(this);
  });

  it('a pair created through server 1 is listed by server 2, pulled by exactly one of them, and taken over when the puller stops', async () => {
    const databaseUrl = await freshDatabase(cluster, 'fedpairs');
    // One instance, two servers: the same instance key in both data directories.
    const dirs = [await mkdtemp(join(tmpdir(), 'loom-fed-a-')), await mkdtemp(join(tmpdir(), 'loom-fed-b-'))];
    await InstanceKey.loadOrCreate(instanceKeyDir(dirs[0]!));
    await mkdir(instanceKeyDir(dirs[1]!), { recursive: true });
    await copyFile(join(instanceKeyDir(dirs[0]!), 'instance-key'), join(instanceKeyDir(dirs[1]!), 'instance-key'));

    const source = await startServer({ federation: {} });
    const proxy = await countingProxy(source.url);
    const servers: StartedServer[] = [];
    try {
      const admin = await bootstrapAdmin(source.url);
      const peer = await createAccount(source.url, admin, 'peer', ['federation:sync', 'federation:subscribe', 'records:read']);
      const sourceDid = (await get(source.url, '/health')).json.instance_did as string;
      const thread = newThread('pulled');
      const write = async (clock: number) => {
        const answer = await postJson(source.url, '/v1/records', { thread, actor: 'did:sync:agent:src', act: 'DO', body: { clock }, clock, data_type: 'SCALAR', parents: [] });
        expect(answer.status, answer.text).to.equal(201);
      };
      for (let clock = 0; clock < 5; clock++) await write(clock);

      for (const dataDir of dirs) servers.push(await startServer({ storage: 'postgres', databaseUrl, dataDir, keepDataDir: true, federation: { backoffBaseMs: 50, backoffMaxMs: 500 } }));
      const [one, two] = servers as [StartedServer, StartedServer];
      expect((await get(one.url, '/health')).json.instance_did).to.equal((await get(two.url, '/health')).json.instance_did);

      const created = await postJson(one.url, '/v1/sync/pairs', { peer_did: sourceDid, peer_url: proxy.url, peer_token: peer.token, mode: 'polling', poll_interval_ms: 50, thread_id: thread });
      expect(created.status, created.text).to.equal(201);
      const id = created.json.pair_id as string;

      // Listed by server 2 (the registry is a fold of the shared log), the token nowhere in clear.
      const listed = await get(two.url, '/v1/sync/pairs');
      expect(listed.json.data.map((p: any) => p.pair_id)).to.deep.equal([id]);
      const lifecycle = await get(two.url, `/v1/threads/${TH_FEDERATION_PAIRS}/records?limit=100`);
      expect(lifecycle.text).to.not.include(peer.token);

      // Pulled: the source's records reach the shared log, through exactly one server.
      await until('the pulled records on server 2', async () => (await get(two.url, `/v1/threads/${thread}/records?limit=100`)).json.data?.length === 5);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const pages = [await pagesPulled(one, id), await pagesPulled(two, id)];
      expect(pages.filter((n) => n > 0), `pages pulled by server 1 and 2: ${pages.join(', ')}`).to.have.length(1);
      const puller = pages[0]! > 0 ? 0 : 1;
      const other = servers[1 - puller]!;
      // Every pull at the source is the puller's: its own count of pages matches (a poll is one page).
      const counted = proxy.pulls.length;
      expect(counted).to.be.within(pages[puller]! - 1, pages[puller]! + 2);
      // The shared cursor is visible through the other server too.
      expect((await get(other.url, `/v1/sync/pairs/${id}`)).json.cursor).to.be.a('string');

      // Pause through the server that does not run the pair reaches the runner: the pulls stop.
      expect((await request(other.url, 'POST', `/v1/sync/pairs/${id}/pause`)).json.state).to.equal('paused');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const whilePaused = proxy.pulls.length;
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(proxy.pulls.length, 'no pull while paused').to.equal(whilePaused);
      expect((await request(other.url, 'POST', `/v1/sync/pairs/${id}/resume`)).json.state).to.not.equal('paused');
      await until('pulls after resume', async () => proxy.pulls.length > whilePaused);

      // A kick through the server that does not run the pair reaches the runner: a pair polling every 10 min pulls at once.
      const slowThread = newThread('slow');
      const slow = await postJson(other.url, '/v1/sync/pairs', { peer_did: sourceDid, peer_url: proxy.url, peer_token: peer.token, mode: 'polling', poll_interval_ms: 600_000, thread_id: slowThread });
      expect(slow.status, slow.text).to.equal(201);
      const slowPulls = () => proxy.pulls.filter((p) => p.thread === slowThread).length;
      await until('the slow pair pulls once', async () => slowPulls() === 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(slowPulls()).to.equal(1);
      expect((await request(other.url, 'POST', `/v1/sync/pairs/${slow.json.pair_id}/kick`)).status).to.equal(200);
      await until('the kicked pair pulls again', async () => slowPulls() === 2);
      expect((await request(other.url, 'DELETE', `/v1/sync/pairs/${slow.json.pair_id}`)).status).to.equal(200);

      // The puller stops: the other server leads, takes the pair over from the shared cursor with the sealed token.
      const handover = proxy.pulls.length;
      await servers[puller]!.stop();
      servers.splice(puller, 1);
      for (let clock = 5; clock < 10; clock++) await write(clock);
      await until('the other server pulls the new records', async () => (await get(other.url, `/v1/threads/${thread}/records?limit=100`)).json.data?.length === 10, 60_000);
      expect(await pagesPulled(other, id)).to.be.greaterThan(0);
      const after = proxy.pulls.slice(handover);
      expect(after.length).to.be.greaterThan(0);
      expect(after.every((p) => p.since !== null && p.since !== ''), 'the new leader resumes from the shared cursor').to.equal(true);

      // Delete through the server left: the runner stops.
      expect((await request(other.url, 'DELETE', `/v1/sync/pairs/${id}`)).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const deleted = proxy.pulls.length;
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(proxy.pulls.length, 'no pull after delete').to.equal(deleted);
    } finally {
      for (const server of servers) await server.stop().catch(() => {});
      await proxy.close();
      await source.stop();
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    }
  });
});
