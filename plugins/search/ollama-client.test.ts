import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { bagOfWordsVector, startOllamaProtocolServer, type OllamaProtocolServer } from '../../test/helpers/ollama-protocol-server.js';
import { EmbedderError, OllamaEmbedClient } from './ollama-client.js';

describe('OllamaEmbedClient (against a server speaking /api/embed)', () => {
  let server: OllamaProtocolServer;
  const options = { timeoutMs: 1_000, retries: 2, backoffMs: 5 };

  beforeEach(async () => {
    server = await startOllamaProtocolServer({ models: { 'nomic-embed-text': 16 } });
  });
  afterEach(() => server.close());

  it('sends the batch as an array and answers one vector per input, in order', async () => {
    const client = new OllamaEmbedClient(server.url, 'nomic-embed-text', options);
    const vectors = await client.embed(['first text', 'second text', 'third']);
    expect(vectors).to.deep.equal(['first text', 'second text', 'third'].map((text) => bagOfWordsVector(text, 16)));
    expect(server.requests).to.equal(1);
    expect(server.inputs).to.equal(3);
    expect(await client.embed([])).to.deep.equal([]);
    expect(server.requests).to.equal(1);
  });

  it('accepts an endpoint with or without a trailing slash', async () => {
    expect(await new OllamaEmbedClient(server.url + '/', 'nomic-embed-text', options).embed(['x'])).to.have.length(1);
  });

  it('retries 5xx with backoff, then reports the status and the provider message', async () => {
    server.failWith = { status: 503, error: 'server busy' };
    const client = new OllamaEmbedClient(server.url, 'nomic-embed-text', options);
    const error = await client.embed(['x']).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(EmbedderError);
    expect(error).to.include({ status: 503, transient: true });
    expect((error as Error).message).to.contain('server busy');
    expect(server.requests).to.equal(3);
  });

  it('keeps its process alive while it waits to retry (a CLI import never exits before its summary)', async () => {
    // The CLI's offline import awaits the embedding consumer at stop; a retry wait that did not hold the
    // process let Node exit mid-await, with status 0, no summary and the journal unapplied (issue 38, defect 3).
    server.failWith = { status: 503, error: 'server busy' };
    const module = new URL('./ollama-client.js', import.meta.url).href;
    const script = `const { OllamaEmbedClient } = await import(${JSON.stringify(module)});
      const client = new OllamaEmbedClient(${JSON.stringify(server.url)}, 'nomic-embed-text', { timeoutMs: 1000, retries: 2, backoffMs: 200 });
      await client.embed(['x']).then(() => console.log('embedded'), (error) => console.log('refused', error.status));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    expect(stdout.trim()).to.equal('refused 503');
  });

  it('stops waiting to retry when its signal aborts', async () => {
    server.failWith = { status: 503, error: 'server busy' };
    const client = new OllamaEmbedClient(server.url, 'nomic-embed-text', { timeoutMs: 1000, retries: 3, backoffMs: 10_000 });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    const error = await client.embed(['x'], controller.signal).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(EmbedderError);
    expect(Date.now() - started).to.be.lessThan(2_000);
  });

  it('does not retry a refusal of the input (404 unknown model)', async () => {
    const client = new OllamaEmbedClient(server.url, 'never-pulled', options);
    const error = await client.embed(['x']).then(() => null, (e: unknown) => e);
    expect(error).to.include({ status: 404, transient: false });
    expect((error as Error).message).to.contain('model "never-pulled" not found');
    expect(server.requests).to.equal(1);
  });

  it('reports an unreachable server and a server that does not answer in time', async () => {
    await server.close();
    const down = await new OllamaEmbedClient(server.url, 'nomic-embed-text', { ...options, retries: 0 }).embed(['x']).then(() => null, (e: unknown) => e);
    expect(down).to.include({ status: null, transient: true });
    expect((down as Error).message).to.match(/unreachable: ECONNREFUSED/);
    server = await startOllamaProtocolServer();
    server.delayMs = 500;
    const slow = await new OllamaEmbedClient(server.url, 'nomic-embed-text', { ...options, timeoutMs: 50, retries: 0 }).embed(['x']).then(() => null, (e: unknown) => e);
    expect((slow as Error).message).to.contain('no answer within 50 ms');
  });
});
