/**
 * One embedder for servers sharing a PostgreSQL log (issue 36): only the
 * leader calls the embedding provider (a local server speaking Ollama's
 * /api/embed exactly, test/helpers/ollama-protocol-server.ts, counting what
 * it was asked); the vectors go to the shared store and every server loads
 * them, so three servers ask the provider exactly what one asks, and answer a
 * search alike. When the leader stops, another takes over at the shared
 * frontier: new records are embedded, old ones never again.
 */
import { expect } from 'chai';
import type { ThrowawayCluster } from '../../storage/postgres/throwaway-cluster.js';
import { get, newThread, postJson, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { startOllamaProtocolServer, type OllamaProtocolServer } from '../helpers/ollama-protocol-server.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';
import { until } from '../helpers/until.js';

const SEARCH = { embedRetries: 1, embedBackoffMs: 5, maxBackoffMs: 50, embedTimeoutMs: 5_000, vectorPollMs: 100 };
const WORDS = ['budget', 'garden', 'release', 'invoice', 'harbour', 'violin', 'glacier', 'pepper', 'lantern', 'orbit'];
const N = 120;

let clock = 0;
async function say(url: string, thread: string, text: string): Promise<string> {
  const answer = await request(url, 'POST', '/v1/records', { json: { thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { text }, clock: ++clock, data_type: 'SCALAR' } });
  expect(answer.status, answer.text).to.be.oneOf([200, 201]);
  return answer.json.id as string;
}

async function configure(url: string, endpoint: string): Promise<void> {
  const answer = await request(url, 'POST', '/v1/config/embedding_provider', { json: { provider: { kind: 'ollama', endpoint } } });
  expect(answer.status, answer.text).to.equal(201);
}

/** The active model on `url` once it holds `vectors` vectors and has examined the whole log. */
async function holds(url: string, vectors: number): Promise<{ vectors: number; frontier: number }> {
  let last: unknown;
  return until(`${vectors} vectors on ${url} (last: ${JSON.stringify(last)})`, 30_000, async () => {
    const stats = (await get(url, '/v1/search/stats')).json;
    const active = stats.semantic.models.find((m: { active: boolean }) => m.active);
    last = active ?? stats.semantic;
    return active && active.vectors === vectors && active.pending_records === 0 ? active : null;
  });
}

async function roles(servers: readonly StartedServer[]): Promise<string[]> {
  return Promise.all(servers.map(async (server) => (await get(server.url, '/v1/search/stats')).json.semantic.role as string));
}

async function leaderOf(servers: readonly StartedServer[]): Promise<number> {
  return until('one leader', 15_000, async () => {
    const leads = await Promise.all(servers.map(async (server) => (await get(server.url, '/health')).json.storage.leader === true));
    return leads.filter(Boolean).length === 1 ? leads.indexOf(true) + 1 : null;
  }).then((n) => n - 1);
}

/** Writes N records (before the provider is configured, so the backlog is embedded in the same batches whatever the number of servers), then embeds them. */
async function embedOnce(servers: readonly StartedServer[], ollama: OllamaProtocolServer): Promise<string[]> {
  const thread = newThread('embedder');
  const ids: string[] = [];
  for (let i = 0; i < N; i++) ids.push(await say(servers[i % servers.length]!.url, thread, `note ${i} about the ${WORDS[i % WORDS.length]} and the ${WORDS[(i * 3 + 1) % WORDS.length]}`));
  await configure(servers[0]!.url, ollama.url);
  for (const server of servers) await holds(server.url, N);
  // A follower that called the provider late would show here.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return ids;
}

describe('one embedder for servers sharing a PostgreSQL log', function () {
  this.timeout(120_000);
  let cluster: ThrowawayCluster;

  before(async function () {
    cluster = await clusterOrSkip(this);
  });

  it('three servers ask the provider exactly what one asks, and answer a search alike', async () => {
    const one = await startOllamaProtocolServer();
    const three = await startOllamaProtocolServer();
    const servers: StartedServer[] = [];
    try {
      servers.push(await startServer({ storage: 'postgres', databaseUrl: await freshDatabase(cluster, 'embed_one'), search: SEARCH }));
      await embedOnce(servers, one);
      await servers.pop()!.stop();

      const url = await freshDatabase(cluster, 'embed_three');
      for (let i = 0; i < 3; i++) servers.push(await startServer({ storage: 'postgres', databaseUrl: url, search: SEARCH }));
      await embedOnce(servers, three);
      expect(one.inputs).to.equal(N);
      expect(three.inputs / one.inputs, 'texts embedded, three servers ÷ one').to.equal(1);
      expect(three.requests / one.requests, 'provider calls, three servers ÷ one').to.equal(1);

      const leader = await leaderOf(servers);
      const expected = servers.map((_, i) => (i === leader ? 'leader' : 'follower'));
      expect(await roles(servers)).to.deep.equal(expected);
      const health = await Promise.all(servers.map(async (server) => (await get(server.url, '/health')).json));
      expect(health.map((h) => JSON.stringify(h)).join('\n')).to.include('"embedder":"leader"');

      const answers = await Promise.all(servers.map((server) => postJson(server.url, '/v1/records/search', { query: 'the violin and the glacier', k: 5 })));
      for (const answer of answers) expect(answer.status, answer.text).to.equal(200);
      const ranked = answers.map((answer) => answer.json.data.map((hit: { id: string; score: number }) => `${hit.id} ${hit.score.toFixed(6)}`));
      expect(ranked[0]).to.have.length(5);
      expect(ranked[1]).to.deep.equal(ranked[0]);
      expect(ranked[2]).to.deep.equal(ranked[0]);
      // A follower's backfill does not call the provider.
      const before = three.requests;
      const follower = servers[(leader + 1) % 3]!;
      const report = await postJson(follower.url, '/v1/records/embed', {});
      expect(report.status, report.text).to.equal(200);
      expect(report.json).to.include({ embedded: 0, remaining: 0, has_more: false });
      expect(three.requests).to.equal(before);
    } finally {
      for (const server of servers) await server.stop();
      await one.close();
      await three.close();
    }
  });

  it('a new leader resumes at the shared frontier: new records are embedded, old ones never again', async () => {
    const ollama = await startOllamaProtocolServer();
    const servers: StartedServer[] = [];
    try {
      const url = await freshDatabase(cluster, 'embed_failover');
      for (let i = 0; i < 3; i++) servers.push(await startServer({ storage: 'postgres', databaseUrl: url, search: SEARCH }));
      await embedOnce(servers, ollama);
      const leader = await leaderOf(servers);
      await servers[leader]!.stop();
      const survivors = servers.filter((_, i) => i !== leader);
      servers.length = 0;
      servers.push(...survivors);
      const inputs = ollama.inputs;

      await leaderOf(survivors);
      const thread = newThread('after-failover');
      const fresh: string[] = [];
      for (let i = 0; i < 10; i++) fresh.push(await say(survivors[i % 2]!.url, thread, `a zeppelin over the meadow, number ${i}`));
      for (const server of survivors) await holds(server.url, N + 10);
      expect(ollama.inputs - inputs, 'texts embedded after the failover').to.equal(10);

      for (const server of survivors) {
        const found = await postJson(server.url, '/v1/records/search', { query: 'zeppelin meadow', k: 10 });
        expect(found.status, found.text).to.equal(200);
        expect(found.json.data.map((hit: { id: string }) => hit.id).sort()).to.deep.equal([...fresh].sort());
      }
    } finally {
      for (const server of servers) await server.stop();
      await ollama.close();
    }
  });
});
