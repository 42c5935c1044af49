/**
 * Search over real HTTP: semantic search through a local server speaking
 * Ollama's /api/embed (test/helpers/ollama-protocol-server.ts), and blended
 * BM25 find over conversations and data-plane files.
 */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { uploadFile } from '../helpers/data-plane.js';
import { expectEnvelope, get, newThread, postJson, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { startOllamaProtocolServer, type OllamaProtocolServer } from '../helpers/ollama-protocol-server.js';

const FAST_RETRIES = { embedRetries: 1, embedBackoffMs: 5, maxBackoffMs: 50, embedTimeoutMs: 2_000 };

let clock = 0;
async function say(url: string, thread: string, body: Record<string, unknown>, actor = 'did:sync:user:alice', headers: Record<string, string> = {}) {
  const answer = await request(url, 'POST', '/v1/records', { json: { thread, actor, act: 'KNOW', body, clock: ++clock, data_type: 'SCALAR' }, headers });
  expect(answer.status, answer.text).to.be.oneOf([200, 201]);
  return answer.json;
}

async function configure(url: string, provider: unknown, headers: Record<string, string> = {}) {
  const answer = await request(url, 'POST', '/v1/config/embedding_provider', { json: { provider }, headers });
  expect(answer.status, answer.text).to.equal(201);
}

async function until<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 15_000, last: () => unknown = () => undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(last())}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the active model has examined the whole log. */
async function embeddedAll(url: string, headers: Record<string, string> = {}) {
  return until('the background embedder', async () => {
    const stats = (await get(url, '/v1/search/stats', headers)).json;
    const active = stats.semantic.models.find((m: { active: boolean }) => m.active);
    return active && active.pending_records === 0 ? active : undefined;
  });
}

async function findCaughtUp(url: string, headers: Record<string, string> = {}) {
  let stats: any;
  return until(
    'the find index',
    async () => {
      stats = (await get(url, '/v1/search/stats', headers)).json;
      return stats.find.pending_records === 0 && stats.find.pending_namespaces === 0 && stats.find.pending_discards === 0 && stats.find.rebuilding === null ? stats.find : undefined;
    },
    15_000,
    () => stats,
  );
}

describe('search (HTTP)', function () {
  this.timeout(60_000);

  describe('semantic search', () => {
    let server: StartedServer;
    let ollama: OllamaProtocolServer;
    const planning = newThread('planning');
    const gardening = newThread('gardening');

    before(async () => {
      ollama = await startOllamaProtocolServer({ models: { 'nomic-embed-text': 64, 'all-minilm': 32 } });
      server = await startServer({ search: FAST_RETRIES });
    });
    after(async () => {
      await server?.stop();
      await ollama?.close();
    });

    it('answers 503 SEMANTIC_SEARCH_DISABLED while no provider is configured, and 400 EMPTY_QUERY for a blank query', async () => {
      expectEnvelope(await postJson(server.url, '/v1/records/search', { query: 'budget' }), 503, 'SEMANTIC_SEARCH_DISABLED');
      expectEnvelope(await postJson(server.url, '/v1/records/embed', {}), 503, 'SEMANTIC_SEARCH_DISABLED');
      expectEnvelope(await postJson(server.url, '/v1/records/search', { query: '   ' }), 400, 'EMPTY_QUERY');
      const manifest = (await get(server.url, '/v1/capabilities')).json;
      expect(manifest.semantic_search).to.include({ enabled: false, embedder: null });
    });

    it('embeds new records in the background and ranks by cosine similarity', async () => {
      await say(server.url, planning, { title: 'Quarterly budget review', text: 'the quarterly budget needs revising before the board meeting' });
      await say(server.url, planning, { text: 'launch date for the spring release' }, 'did:sync:user:bob');
      await say(server.url, gardening, { text: 'tomatoes need water and sun in the garden', kind: 'note' });
      await say(server.url, gardening, { kind: 'empty' }); // no words: skipped
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url });
      const model = await embeddedAll(server.url);
      expect(model.embedder).to.equal('ollama:nomic-embed-text');
      expect(model.vectors).to.equal(3);
      expect(model.dimensions).to.equal(64);

      const found = await postJson(server.url, '/v1/records/search', { query: 'quarterly budget board' });
      expect(found.status, found.text).to.equal(200);
      expect(found.json).to.include({ object: 'list', embedder: 'ollama:nomic-embed-text', k: 10 });
      expect(found.json.data).to.have.length(3);
      expect(found.json.data[0].body.title).to.equal('Quarterly budget review');
      const scores = found.json.data.map((hit: { score: number }) => hit.score);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      expect(scores[0]).to.be.greaterThan(0.5).and.at.most(1.000001);
      const manifest = (await get(server.url, '/v1/capabilities')).json;
      expect(manifest.semantic_search).to.include({ enabled: true, embedder: 'ollama:nomic-embed-text' });
    });

    it('clamps k to 1..100 and applies thread, actor, kind and after_clock filters', async () => {
      const one = await postJson(server.url, '/v1/records/search', { query: 'garden', k: 0 });
      expect(one.json.k).to.equal(1);
      expect(one.json.data).to.have.length(1);
      expect((await postJson(server.url, '/v1/records/search', { query: 'garden', k: 5000 })).json.k).to.equal(100);
      const onThread = await postJson(server.url, '/v1/records/search', { query: 'quarterly budget', thread: gardening });
      expect(onThread.json.data.map((r: { thread: string }) => r.thread)).to.deep.equal([gardening]);
      const byBob = await postJson(server.url, '/v1/records/search', { query: 'budget', actor: 'did:sync:user:bob' });
      expect(byBob.json.data.map((r: { actor: string }) => r.actor)).to.deep.equal(['did:sync:user:bob']);
      const notes = await postJson(server.url, '/v1/records/search', { query: 'budget', kind: 'note' });
      expect(notes.json.data.map((r: { body: { kind: string } }) => r.body.kind)).to.deep.equal(['note']);
      const later = await postJson(server.url, '/v1/records/search', { query: 'budget', after_clock: clock - 2 });
      expect(later.json.data.every((r: { clock: number }) => r.clock > clock - 2)).to.equal(true);
      expectEnvelope(await postJson(server.url, '/v1/records/search', { k: 3 }), 400, 'INVALID_SHAPE');
    });

    it('answers 502 EMBEDDER_FAILED with the provider status when the embedding server refuses or is unknown to the model', async () => {
      ollama.failWith = { status: 500, error: 'llama runner process has terminated' };
      try {
        const failed = await postJson(server.url, '/v1/records/search', { query: 'budget' });
        expectEnvelope(failed, 502, 'EMBEDDER_FAILED', '', { provider_status: 500 });
        expect(failed.json.message).to.contain('llama runner process has terminated');
      } finally {
        ollama.failWith = null;
      }
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url, model: 'never-pulled' });
      const unknown = await postJson(server.url, '/v1/records/search', { query: 'budget' });
      expectEnvelope(unknown, 502, 'EMBEDDER_FAILED', '', { provider_status: 404 });
      expect(unknown.json.message).to.contain('not found, try pulling it first');
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url });
    });

    it('a model change makes the old vectors inactive until re-embedded; backfill loops to has_more: false', async () => {
      const old = await embeddedAll(server.url);
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url, model: 'all-minilm' });
      for (let i = 0; i < 30; i++) await say(server.url, planning, { text: `agenda item ${i} about the budget` });
      let calls = 0;
      let embedded = 0;
      for (;;) {
        const answer = await postJson(server.url, '/v1/records/embed', { limit: 7 });
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json).to.include({ object: 'embed_report', embedder: 'ollama:all-minilm' });
        expect(answer.json.embedded + answer.json.skipped_empty + answer.json.failed).to.be.at.most(7);
        embedded += answer.json.embedded;
        calls += 1;
        if (!answer.json.has_more) {
          expect(answer.json.remaining).to.equal(0);
          break;
        }
        expect(calls).to.be.below(100);
      }
      const stats = (await get(server.url, '/v1/search/stats')).json.semantic;
      const byName = Object.fromEntries(stats.models.map((m: { embedder: string }) => [m.embedder, m]));
      expect(byName['ollama:all-minilm']).to.include({ active: true, vectors: old.vectors + 30, dimensions: 32 });
      expect(byName['ollama:nomic-embed-text']).to.include({ active: false, vectors: old.vectors });
      const found = await postJson(server.url, '/v1/records/search', { query: 'agenda item 7', k: 3 });
      expect(found.json.embedder).to.equal('ollama:all-minilm');
      expect(found.json.data[0].body.text).to.equal('agenda item 7 about the budget');
      expect(embedded).to.be.at.most(old.vectors + 30);
      // Going back: the old vectors are used again, and only what they lack is embedded.
      const inputs = ollama.inputs;
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url });
      const back = await embeddedAll(server.url);
      expect(back).to.include({ embedder: 'ollama:nomic-embed-text', vectors: old.vectors + 30 });
      expect(ollama.inputs - inputs).to.equal(30);
    });

    it('counts a record the server refuses on its own as failed and embeds the rest of its batch', async () => {
      ollama.refuseInputContaining = 'POISON';
      try {
        await say(server.url, planning, { text: 'a POISON pill that the model refuses' });
        await say(server.url, planning, { text: 'an ordinary record after it' });
        const model = await embeddedAll(server.url);
        expect(model.failed_records).to.equal(1);
        expect(model.vectors).to.equal(34); // 33 before, the ordinary one after, not the refused one
      } finally {
        ollama.refuseInputContaining = null;
      }
    });
  });

  describe('semantic search with an approximate index', () => {
    let server: StartedServer;
    let ollama: OllamaProtocolServer;

    before(async () => {
      ollama = await startOllamaProtocolServer();
      server = await startServer({ search: { ...FAST_RETRIES, hnswMinVectors: 50 }, keepDataDir: true });
    });
    after(async () => {
      await server?.stop();
      await ollama?.close();
    });

    it('answers the same top hits through the HNSW graph as exact search, and reloads the graph at restart without re-embedding', async () => {
      const threads = [newThread('a'), newThread('b'), newThread('c')];
      const words = ['river', 'mountain', 'forest', 'desert', 'ocean', 'valley', 'glacier', 'canyon', 'meadow', 'island'];
      for (let i = 0; i < 120; i++) await say(server.url, threads[i % 3]!, { text: `${words[i % 10]} ${words[(i * 3) % 10]} ${words[(i * 7) % 10]} trip ${i}` });
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url });
      await embeddedAll(server.url);
      const graphReady = await until('the graph', async () => {
        const model = (await get(server.url, '/v1/search/stats')).json.semantic.models[0];
        return model.index.kind === 'hnsw' && model.index.pending === 0 ? model : undefined;
      });
      expect(graphReady.index.indexed).to.equal(120);
      const query = { query: 'river forest trip', k: 10 };
      // Searches confined to one thread are exact; their best ten together are the exact answer (compared by score: equal texts tie).
      const graphHits = (await postJson(server.url, '/v1/records/search', query)).json.data;
      const viaGraph = graphHits.map((r: { id: string }) => r.id);
      const exactScores = (await Promise.all(threads.map((thread) => postJson(server.url, '/v1/records/search', { ...query, thread }))))
        .flatMap((answer) => answer.json.data.map((r: { score: number }) => r.score))
        .sort((a: number, b: number) => b - a)
        .slice(0, 10);
      expect(graphHits.map((r: { score: number }) => r.score)).to.deep.equal(exactScores);

      const inputsBefore = ollama.inputs;
      const dataDir = server.dataDir;
      await server.stop();
      server = await startServer({ search: { ...FAST_RETRIES, hnswMinVectors: 50 }, dataDir, keepDataDir: false });
      const model = (await get(server.url, '/v1/search/stats')).json.semantic.models[0];
      expect(model).to.include({ vectors: 120 });
      expect(model.index).to.include({ kind: 'hnsw', indexed: 120 });
      const again = (await postJson(server.url, '/v1/records/search', query)).json.data.map((r: { id: string }) => r.id);
      expect(again).to.deep.equal(viaGraph);
      expect(ollama.inputs - inputsBefore).to.equal(1); // the query only
    });
  });

  describe('ingest while the embedding server is down', () => {
    let server: StartedServer;
    let ollama: OllamaProtocolServer;

    after(async () => {
      await server?.stop();
      await ollama?.close();
    });

    it('keeps ingesting, reports the failure, and embeds the backlog once the server is back', async () => {
      ollama = await startOllamaProtocolServer();
      const port = Number(new URL(ollama.url).port);
      server = await startServer({ search: FAST_RETRIES });
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url });
      await ollama.close();
      const thread = newThread('outage');
      const started = Date.now();
      for (let i = 0; i < 100; i++) await say(server.url, thread, { text: `written during the outage ${i}` });
      expect(Date.now() - started).to.be.below(20_000);
      const stats = await until('the failure to show', async () => {
        const semantic = (await get(server.url, '/v1/search/stats')).json.semantic;
        return semantic.provider_state === 'failing' ? semantic : undefined;
      });
      expect(stats.last_failure.message).to.contain('unreachable');
      expectEnvelope(await postJson(server.url, '/v1/records/search', { query: 'outage' }), 502, 'EMBEDDER_FAILED', '', { provider_status: null });
      ollama = await startOllamaProtocolServer({ port });
      const model = await embeddedAll(server.url);
      expect(model.vectors).to.equal(100);
      const found = await postJson(server.url, '/v1/records/search', { query: 'outage 42', k: 1 });
      expect(found.json.data[0].body.text).to.equal('written during the outage 42');
    });
  });

  describe('visibility', () => {
    let server: StartedServer;
    let ollama: OllamaProtocolServer;
    let admin: Credential;
    let reader: Credential;
    const mine = newThread('mine');
    const theirs = newThread('theirs');

    before(async () => {
      ollama = await startOllamaProtocolServer();
      server = await startServer({ auth: { required: true }, search: FAST_RETRIES });
      admin = await bootstrapAdmin(server.url);
      reader = await createAccount(server.url, admin, 'thread reader', [`thread:${mine}:read`]);
      await configure(server.url, { kind: 'ollama', endpoint: ollama.url }, bearer(admin));
      // The other thread holds many records closer to the query than any of mine.
      for (let i = 0; i < 60; i++) await say(server.url, theirs, { title: 'secret budget', text: `secret budget line ${i}` }, 'did:sync:user:alice', bearer(admin));
      for (let i = 0; i < 6; i++) await say(server.url, mine, { text: `my notes ${i} mention a budget once` }, 'did:sync:user:alice', bearer(admin));
      await embeddedAll(server.url, bearer(admin));
      await findCaughtUp(server.url, bearer(admin));
    });
    after(async () => {
      await server?.stop();
      await ollama?.close();
    });

    it('a thread-grained caller never sees another thread in search, and still gets k results', async () => {
      const answer = await request(server.url, 'POST', '/v1/records/search', { json: { query: 'secret budget', k: 5 }, headers: bearer(reader) });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.data).to.have.length(5);
      expect(answer.json.data.every((r: { thread: string }) => r.thread === mine)).to.equal(true);
      const all = await request(server.url, 'POST', '/v1/records/search', { json: { query: 'secret budget', k: 5 }, headers: bearer(admin) });
      expect(all.json.data.every((r: { thread: string }) => r.thread === theirs)).to.equal(true);
    });

    it('a thread-grained caller never sees another thread in find', async () => {
      const answer = await request(server.url, 'GET', '/v1/find?q=secret%20budget', { headers: bearer(reader) });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.data.map((hit: { thread: string }) => hit.thread)).to.deep.equal([mine]);
      const admins = await request(server.url, 'GET', '/v1/find?q=secret%20budget', { headers: bearer(admin) });
      expect(admins.json.data[0].thread).to.equal(theirs);
    });

    it('stats, rebuild and backfill are for admins', async () => {
      expectEnvelope(await request(server.url, 'GET', '/v1/search/stats', { headers: bearer(reader) }), 403, 'SCOPE_FORBIDDEN');
      expectEnvelope(await request(server.url, 'POST', '/v1/search/rebuild', { json: {}, headers: bearer(reader) }), 403, 'SCOPE_FORBIDDEN');
      expectEnvelope(await request(server.url, 'POST', '/v1/records/embed', { json: {}, headers: bearer(reader) }), 403, 'SCOPE_FORBIDDEN');
    });
  });

  for (const storage of ['sqlite', 'level'] as const) {
    describe(`find on ${storage}`, () => {
      let server: StartedServer;
      const launch = newThread('launch');
      const chatter = newThread('chatter');

      before(async () => {
        server = await startServer({ storage, keepDataDir: true, data: { chunkSizeBytes: 65536 } });
        await say(server.url, launch, { title: 'Spring launch budget', text: 'figures for the campaign' });
        await say(server.url, launch, { text: 'we agreed on the numbers' }, 'did:sync:user:bob');
        await say(server.url, chatter, { text: 'lunch was good; by the way someone said spring launch budget in passing, and many other words about many other topics of the day' });
        await say(server.url, chatter, { text: 'internationalisation of the interface' });
        await uploadFile(server.url, '/plans/budget-notes.md', Buffer.from('The quarterly budget plan needs revising.\nSee the spreadsheet.'), { chunkSize: 65536, init: { content_type: 'text/markdown' } });
        await uploadFile(server.url, '/images/photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]), { chunkSize: 65536, init: { content_type: 'image/png' } });
        await findCaughtUp(server.url);
      });
      after(async () => {
        await server?.stop();
      });

      it('ranks an exact title match above a passing mention, one hit per thread, with highlighted snippets', async () => {
        const answer = await get(server.url, '/v1/find?q=spring%20launch%20budget&types=thread');
        expect(answer.status, answer.text).to.equal(200);
        const hits = answer.json.data;
        expect(hits.map((hit: { thread: string }) => hit.thread)).to.deep.equal([launch, chatter]);
        expect(hits[0]).to.include({ object: 'find_hit', type: 'thread', title: 'Spring launch budget' });
        expect(hits[0].why).to.include('title');
        expect(hits[0].participants).to.have.members(['did:sync:user:alice', 'did:sync:user:bob']);
        expect(hits[0].score).to.be.greaterThan(hits[1].score);
        const { text, offsets } = hits[1].snippet;
        expect(offsets.length).to.be.greaterThan(0);
        expect(offsets.map(([s, e]: [number, number]) => text.slice(s, e).toLowerCase())).to.include.members(['spring', 'launch', 'budget']);
      });

      it('blends files (by name and by content) and conversations into one ranking; types narrows it', async () => {
        const both = (await get(server.url, '/v1/find?q=budget')).json;
        expect(both.planes_served).to.have.members(['names', 'content', 'threads']);
        const types = new Set(both.data.map((hit: { type: string }) => hit.type));
        expect([...types]).to.have.members(['thread', 'material']);
        const material = both.data.find((hit: { type: string }) => hit.type === 'material');
        expect(material).to.include({ title: 'budget-notes.md', path: '/plans/budget-notes.md', namespace: 'default' });
        expect(material.why).to.include.members(['name', 'content']);
        expect(material.node).to.include({ content_type: 'text/markdown' });
        const content = (await get(server.url, '/v1/find?q=spreadsheet&types=material')).json.data;
        expect(content).to.have.length(1);
        expect(content[0].snippet.text).to.contain('spreadsheet');
        expect((await get(server.url, '/v1/find?q=photo&types=material')).json.data[0].path).to.equal('/images/photo.png');
        expect((await get(server.url, '/v1/find?q=budget&types=material')).json.data.every((hit: { type: string }) => hit.type === 'material')).to.equal(true);
        expectEnvelope(await get(server.url, '/v1/find?q=budget&types=emails'), 400, 'INVALID_SHAPE');
        expectEnvelope(await get(server.url, '/v1/find?q=%20'), 400, 'EMPTY_QUERY');
      });

      it('matches the last word as a prefix only when asked, and explains the scoring', async () => {
        expect((await get(server.url, '/v1/find?q=international')).json.data).to.have.length(0);
        const prefixed = (await get(server.url, '/v1/find?q=international&prefix=true&explain=true')).json.data;
        expect(prefixed).to.have.length(1);
        expect(prefixed[0].thread).to.equal(chatter);
        expect(prefixed[0].explain).to.include({ plane: 'threads', rank: 1 });
        expect(prefixed[0].explain.terms).to.have.property('internationalisation');
        expect(prefixed[0].snippet.offsets).to.have.length(1);
      });

      it('follows moves and removals of files', async () => {
        expect((await postJson(server.url, '/v1/data/mv', { from: '/plans/budget-notes.md', to: '/archive/old-notes.md' })).status).to.equal(200);
        await findCaughtUp(server.url);
        const moved = (await get(server.url, '/v1/find?q=spreadsheet&types=material')).json.data;
        expect(moved.map((hit: { path: string }) => hit.path)).to.deep.equal(['/archive/old-notes.md']);
        expect((await postJson(server.url, '/v1/data/rm', { path: '/images/photo.png' })).status).to.equal(200);
        await findCaughtUp(server.url);
        expect((await get(server.url, '/v1/find?q=photo&types=material')).json.data).to.have.length(0);
      });

      it('rebuilds on request and after a restart, with the same ranking', async () => {
        const before = (await get(server.url, '/v1/find?q=budget')).json.data.map((hit: { score: number; title: string }) => [hit.title, hit.score]);
        const rebuilt = await postJson(server.url, '/v1/search/rebuild', { scope: 'all' });
        expect(rebuilt.status, rebuilt.text).to.equal(202);
        expect(rebuilt.json.dropped).to.be.greaterThan(0);
        await findCaughtUp(server.url);
        expect((await get(server.url, '/v1/find?q=budget')).json.data.map((hit: { score: number; title: string }) => [hit.title, hit.score])).to.deep.equal(before);
        const dataDir = server.dataDir;
        await server.stop();
        server = await startServer({ storage, dataDir, data: { chunkSizeBytes: 65536 } });
        await findCaughtUp(server.url);
        expect((await get(server.url, '/v1/find?q=budget')).json.data.map((hit: { score: number; title: string }) => [hit.title, hit.score])).to.deep.equal(before);
      });
    });
  }
});
