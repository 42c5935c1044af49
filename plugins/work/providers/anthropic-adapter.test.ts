/**
 * What the Anthropic adapter puts on the wire, read back from the fake: the
 * headers and body fields of the Messages API reference, and tool results
 * as `tool_result` blocks opening the next user turn. The configuration is
 * the only source of key and URL: the environment is not read.
 */
import { expect } from 'chai';
import { startFakeAnthropic } from '../../../test/fakes/fake-anthropic.js';
import type { FakeProvider } from '../../../test/fakes/fake-server.js';
import { script } from '../../../test/fakes/script.js';
import { AnthropicAdapter } from './anthropic-adapter.js';
import type { ModelRequest } from './model-request.js';

const KEY = 'sk-ant-api03-configured-0123456789';

describe('AnthropicAdapter request bytes', function () {
  this.timeout(10_000);
  let fake: FakeProvider;
  let adapter: AnthropicAdapter;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    adapter = new AnthropicAdapter({ provider: 'anthropic', apiKey: KEY, baseUrl: fake.url });
  });
  afterEach(() => fake.close());

  const request: ModelRequest = {
    model: 'claude-test',
    system: 'Be exact.',
    tools: [{ name: 'find', description: 'Find records.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
    maxTokens: 700,
    messages: [
      { role: 'user', text: 'Find x.' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'toolu_1', name: 'find', input: { q: 'x' } }, { id: 'toolu_2', name: 'find', input: { q: 'y' } }] },
      { role: 'tool_results', results: [{ callId: 'toolu_1', content: 'found', isError: false }, { callId: 'toolu_2', content: 'timed out', isError: true }] },
      { role: 'user', text: 'And now?' },
    ],
  };

  it('sends x-api-key (and no Bearer), anthropic-version and JSON, to POST /v1/messages', async () => {
    fake.enqueue(script.text('ok'));
    await adapter.complete(request, { signal: new AbortController().signal });
    const sent = fake.requests[0]!;
    expect(sent.method).to.equal('POST');
    expect(sent.path).to.equal('/v1/messages');
    expect(sent.headers['x-api-key']).to.equal(KEY);
    expect(sent.headers.authorization).to.equal(undefined);
    expect(sent.headers['anthropic-version']).to.match(/^\d{4}-\d{2}-\d{2}$/);
    expect(sent.headers['content-type']).to.equal('application/json');
    expect(sent.headers['x-stainless-retry-count']).to.equal('0');
  });

  it('sends model, max_tokens, system, tools with input_schema, stream, and tool results at the head of the next user turn', async () => {
    fake.enqueue(script.text('ok'));
    await adapter.complete(request, { signal: new AbortController().signal });
    expect(fake.requests[0]!.body).to.deep.equal({
      model: 'claude-test',
      max_tokens: 700,
      stream: true,
      system: 'Be exact.',
      tools: [{ name: 'find', description: 'Find records.', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }],
      messages: [
        { role: 'user', content: 'Find x.' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'find', input: { q: 'x' } },
            { type: 'tool_use', id: 'toolu_2', name: 'find', input: { q: 'y' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: 'found', is_error: false },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: 'timed out', is_error: true },
            { type: 'text', text: 'And now?' },
          ],
        },
      ],
    });
  });

  it('leaves out a null system prompt and an empty tool list', async () => {
    fake.enqueue(script.text('ok'));
    await adapter.complete({ ...request, system: null, tools: [], messages: [{ role: 'user', text: 'hi' }] }, { signal: new AbortController().signal });
    expect(fake.requests[0]!.body).to.not.have.any.keys('system', 'tools');
  });

  it('reads no environment: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN and ANTHROPIC_BASE_URL set to other values change nothing', async () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = 'sk-from-env';
    process.env.ANTHROPIC_AUTH_TOKEN = 'token-from-env';
    process.env.ANTHROPIC_BASE_URL = 'http://127.0.0.1:9';
    try {
      fake.enqueue(script.text('ok'));
      await new AnthropicAdapter({ provider: 'anthropic', apiKey: KEY, baseUrl: fake.url }).complete(request, { signal: new AbortController().signal });
    } finally {
      for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL']) {
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
      }
    }
    expect(fake.requests[0]!.headers['x-api-key']).to.equal(KEY);
    expect(fake.requests[0]!.headers.authorization).to.equal(undefined);
  });

  it('counts cached input in the input tokens, and takes the cumulative output count of message_delta', async () => {
    fake.enqueue(script.text('ok', { usage: { input: 100, output: 42 } }));
    const turn = await adapter.complete(request, { signal: new AbortController().signal });
    expect(turn.usage).to.deep.equal({ inputTokens: 100, outputTokens: 42, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(turn.requestId).to.match(/^req_fake/);
  });

  it('a tool input cut off by max_tokens is kept raw with inputError, not run on a guess', async () => {
    fake.enqueue(script.toolCalls([{ name: 'find', input: { q: 'x' }, fragments: ['{"q": "unfin'] }], { stop: 'max_tokens' }));
    const turn = await adapter.complete(request, { signal: new AbortController().signal });
    expect(turn.stopReason).to.equal('max_tokens');
    expect(turn.toolCalls[0]).to.include({ name: 'find', rawInput: '{"q": "unfin' });
    expect(turn.toolCalls[0]!.input).to.deep.equal({});
    expect(turn.toolCalls[0]!.inputError).to.be.a('string');
  });
});
