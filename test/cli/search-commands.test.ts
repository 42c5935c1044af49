/**
 * `loom embedding-provider`, `loom embed`, `loom search` and `loom find`
 * against a real server and a local server speaking Ollama's /api/embed.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { get, newThread, request } from '../helpers/http-server.js';
import { startOllamaProtocolServer, type OllamaProtocolServer } from '../helpers/ollama-protocol-server.js';
import { runLoom } from '../helpers/cli-run.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';


describe('loom search, find, embed and embedding-provider commands', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let ollama: OllamaProtocolServer;
  let root: string;
  const thread = newThread('cli-search');

  const loom = (args: string[]) => runLoom(args, { url: server.url, config: join(root, 'config.json') });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-search-'));
    ollama = await startOllamaProtocolServer();
    server = await startServer({ search: { embedRetries: 0, embedBackoffMs: 5, maxBackoffMs: 50 } });
    let clock = 0;
    for (const text of ['the spring launch budget is approved', 'garden tomatoes need water', 'budget review for the launch']) {
      const answer = await request(server.url, 'POST', '/v1/records', { json: { thread, actor: 'did:sync:user:alice', act: 'KNOW', body: { text }, clock: clock++, data_type: 'SCALAR' } });
      expect(answer.status).to.equal(201);
    }
  });
  after(async () => {
    await server?.stop();
    await ollama?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('search says semantic search is off until a provider is set, and show says so too', async () => {
    const off = await loom(['search', 'budget']);
    expect(off.code).to.equal(1);
    expect(off.stderr).to.contain('SEMANTIC_SEARCH_DISABLED (503)');
    expect((await loom(['embedding-provider', 'show'])).stdout).to.contain('no embedding provider');
  });

  it('sets the provider, backfills with embed --loop and searches', async () => {
    const set = await loom(['embedding-provider', 'set', '--endpoint', ollama.url]);
    expect(set.code, set.stderr).to.equal(0);
    expect(set.stdout).to.contain(`ollama:nomic-embed-text at ${ollama.url}`);
    expect((await loom(['embedding-provider', 'show'])).stdout).to.equal(`ollama:nomic-embed-text at ${ollama.url}\n`);
    const embedded = JSON.parse((await loom(['embed', '--loop', '--limit', '2', '--json'])).stdout);
    expect(embedded).to.include({ embedder: 'ollama:nomic-embed-text', has_more: false, remaining: 0 });
    const found = await loom(['search', 'spring', 'launch', 'budget', '-k', '2']);
    expect(found.code, found.stderr).to.equal(0);
    expect(found.stdout.split('\n')[0]).to.contain('the spring launch budget is approved');
    expect(found.stdout).to.contain('2 of k=2 by ollama:nomic-embed-text');
    const asJson = JSON.parse((await loom(['search', 'tomatoes', '--thread', thread, '--json'])).stdout);
    expect(asJson.data[0].body.text).to.equal('garden tomatoes need water');
  });

  it('finds with highlighted snippets, shows stats and rebuilds', async () => {
    const stats = await loom(['find', '--stats']);
    expect(stats.stdout).to.match(/^find: 3 conversation records, 0 files/);
    expect(stats.stdout).to.contain('* ollama:nomic-embed-text');
    const found = await loom(['find', 'budget']);
    expect(found.code, found.stderr).to.equal(0);
    expect(found.stdout).to.contain('[budget]');
    expect(found.stdout).to.contain(thread);
    const prefixed = JSON.parse((await loom(['find', 'tomat', '--prefix', '--json'])).stdout);
    expect(prefixed.data).to.have.length(1);
    const rebuilt = await loom(['find', '--rebuild', 'threads']);
    expect(rebuilt.stdout).to.match(/^rebuilding threads: 3 documents dropped/);
    const wrong = await loom(['find', '--rebuild', 'everything']);
    expect(wrong.code).to.equal(2);
    expect(wrong.stderr).to.contain('--rebuild takes materials, threads or all');
    expect((await get(server.url, '/v1/search/stats')).status).to.equal(200);
  });

  it('clear turns semantic search off and keeps the vectors', async () => {
    expect((await loom(['embedding-provider', 'clear'])).stdout).to.contain('semantic search is off');
    expect((await loom(['search', 'budget'])).stderr).to.contain('SEMANTIC_SEARCH_DISABLED');
    const stats = JSON.parse((await loom(['find', '--stats', '--json'])).stdout);
    expect(stats.semantic.models[0]).to.include({ vectors: 3, active: false });
  });
});
