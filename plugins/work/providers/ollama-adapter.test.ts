/**
 * What the Ollama adapter puts on the wire, read back from the fake, and
 * the two places it does more than the `ollama` client: a malformed NDJSON
 * line fails the call (the client would skip it with a console warning), and
 * an `{"error"}` line keeps Ollama's own message.
 */
import { expect } from 'chai';
import { startFakeOllama } from '../../../test/fakes/fake-ollama.js';
import type { FakeProvider } from '../../../test/fakes/fake-server.js';
import { script } from '../../../test/fakes/script.js';
import type { ModelRequest } from './model-request.js';
import { OllamaAdapter } from './ollama-adapter.js';
import { ProviderError } from './provider-error.js';

describe('OllamaAdapter request bytes', function () {
  this.timeout(10_000);
  let fake: FakeProvider;
  let adapter: OllamaAdapter;

  beforeEach(async () => {
    fake = await startFakeOllama({ models: ['llama-test'] });
    adapter = new OllamaAdapter({ provider: 'ollama', host: fake.url });
  });
  afterEach(() => fake.close());

  const request: ModelRequest = {
    model: 'llama-test',
    system: 'Be exact.',
    tools: [{ name: 'find', description: 'Find records.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
    maxTokens: 700,
    messages: [
      { role: 'user', text: 'Find x.' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'call_a', name: 'find', input: { q: 'x' } }] },
      { role: 'tool_results', results: [{ callId: 'call_a', content: 'nothing', isError: true }] },
    ],
  };

  it('posts /api/chat streaming, with num_predict, tools, whole tool calls and tool messages naming the tool', async () => {
    fake.enqueue(script.text('ok'));
    await adapter.complete(request, { signal: new AbortController().signal });
    const sent = fake.requests[0]!;
    expect(sent.path).to.equal('/api/chat');
    expect(sent.body).to.deep.equal({
      model: 'llama-test',
      stream: true,
      options: { num_predict: 700 },
      tools: [{ type: 'function', function: { name: 'find', description: 'Find records.', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
      messages: [
        { role: 'system', content: 'Be exact.' },
        { role: 'user', content: 'Find x.' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'find', arguments: { q: 'x' } } }] },
        { role: 'tool', content: 'Error: nothing', tool_name: 'find' },
      ],
    });
  });

  it('mints an id for each id-less tool call, distinct across calls and turns', async () => {
    const calls = script.toolCalls([{ name: 'find', input: { q: 'a' } }, { name: 'find', input: { q: 'a' } }]);
    fake.enqueue(calls, calls);
    const ids = [
      ...(await adapter.complete(request, { signal: new AbortController().signal })).toolCalls,
      ...(await adapter.complete(request, { signal: new AbortController().signal })).toolCalls,
    ].map((c) => c.id);
    expect(ids).to.have.length(4);
    expect(new Set(ids).size).to.equal(4);
    for (const id of ids) expect(id).to.match(/^call_[0-9a-f]{24}$/);
  });

  it('usage is prompt_eval_count and eval_count of the done line', async () => {
    fake.enqueue(script.text('ok', { usage: { input: 77, output: 8 } }));
    const turn = await adapter.complete(request, { signal: new AbortController().signal });
    expect(turn.usage).to.deep.equal({ inputTokens: 77, outputTokens: 8, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it('a malformed line fails the call as malformed_response, with no console warning', async () => {
    fake.enqueue(script.text(['a', 'b', 'c'], { faults: { malformedFrame: 1 } }));
    const warn = console.warn;
    let warned = 0;
    console.warn = () => void warned++;
    try {
      const error = await adapter.complete(request, { signal: new AbortController().signal }).then(() => null, (e: unknown) => e);
      expect(error).to.be.instanceOf(ProviderError);
      expect(error).to.include({ type: 'malformed_response' });
    } finally {
      console.warn = warn;
    }
    expect(warned).to.equal(0);
  });

  it("an {\"error\"} line keeps Ollama's message; an unknown model is its 404", async () => {
    fake.enqueue(script.text('abc', { faults: { errorAfterFrames: { frames: 1, type: 'error', message: 'model runner has unexpectedly stopped' } } }));
    const inStream = await adapter.complete(request, { signal: new AbortController().signal }).then(() => null, (e: unknown) => e);
    expect(inStream).to.include({ type: 'stream_error', message: 'model runner has unexpectedly stopped', status: null });
    const unknown = await adapter.complete({ ...request, model: 'never-pulled' }, { signal: new AbortController().signal }).then(() => null, (e: unknown) => e);
    expect(unknown).to.include({ type: 'http_error', status: 404 });
  });

  it('takes OLLAMA_HOST as its users write it: host:port without a scheme', async () => {
    fake.enqueue(script.text('ok'));
    const turn = await new OllamaAdapter({ provider: 'ollama', host: fake.url.replace('http://', '') }).complete(request, { signal: new AbortController().signal });
    expect(turn.text).to.equal('ok');
  });
});
