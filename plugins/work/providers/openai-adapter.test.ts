/**
 * What the OpenAI adapter puts on the wire, read back from the fake: the
 * Bearer key (none for a keyless OpenAI-compatible server), the streaming
 * fields with `include_usage`, the output ceiling under either field name,
 * and tool results as `role: "tool"` messages naming their call.
 */
import { expect } from 'chai';
import { startFakeOpenAI } from '../../../test/fakes/fake-openai.js';
import type { FakeProvider } from '../../../test/fakes/fake-server.js';
import { script } from '../../../test/fakes/script.js';
import type { ModelRequest } from './model-request.js';
import { OpenAIAdapter } from './openai-adapter.js';
import { ProviderError } from './provider-error.js';
import { withRetries } from './retrying-adapter.js';

const KEY = 'sk-proj-configured-0123456789';

describe('OpenAIAdapter request bytes', function () {
  this.timeout(10_000);
  let fake: FakeProvider;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(() => fake.close());

  const request: ModelRequest = {
    model: 'gpt-test',
    system: 'Be exact.',
    tools: [{ name: 'find', description: 'Find records.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
    maxTokens: 700,
    messages: [
      { role: 'user', text: 'Find x.' },
      {
        role: 'assistant',
        text: 'Looking.',
        toolCalls: [
          { id: 'call_1', name: 'find', input: { q: 'x' } },
          { id: 'call_2', name: 'find', input: {}, inputError: 'not JSON', rawInput: '{"q": ' },
        ],
      },
      { role: 'tool_results', results: [{ callId: 'call_1', content: 'found', isError: false }, { callId: 'call_2', content: 'your input was not JSON', isError: true }] },
    ],
  };

  it('sends the key as Bearer to POST /v1/chat/completions, and a streaming body with include_usage', async () => {
    fake.enqueue(script.text('ok'));
    await new OpenAIAdapter({ provider: 'openai', apiKey: KEY, baseUrl: `${fake.url}/v1` }).complete(request, { signal: new AbortController().signal });
    const sent = fake.requests[0]!;
    expect(sent.path).to.equal('/v1/chat/completions');
    expect(sent.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(sent.body).to.deep.equal({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 700,
      tools: [{ type: 'function', function: { name: 'find', description: 'Find records.', parameters: { type: 'object', properties: { q: { type: 'string' } } } } }],
      messages: [
        { role: 'system', content: 'Be exact.' },
        { role: 'user', content: 'Find x.' },
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'find', arguments: '{"q":"x"}' } },
            { id: 'call_2', type: 'function', function: { name: 'find', arguments: '{"q": ' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'found' },
        { role: 'tool', tool_call_id: 'call_2', content: 'Error: your input was not JSON' },
      ],
    });
  });

  it('a keyless OpenAI-compatible server gets no Authorization header; max_tokens when configured so', async () => {
    fake.enqueue(script.text('ok'));
    await new OpenAIAdapter({ provider: 'openai', apiKey: null, baseUrl: `${fake.url}/v1`, maxTokensField: 'max_tokens' }).complete(request, { signal: new AbortController().signal });
    const sent = fake.requests[0]!;
    expect(sent.headers.authorization).to.equal(undefined);
    expect(sent.body.max_tokens).to.equal(700);
    expect(sent.body).to.not.have.property('max_completion_tokens');
  });

  it('reads no environment: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORG_ID and OPENAI_PROJECT_ID change nothing', async () => {
    const names = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID'];
    const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
    Object.assign(process.env, { OPENAI_API_KEY: 'sk-from-env', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_ORG_ID: 'org-env', OPENAI_PROJECT_ID: 'proj-env' });
    try {
      fake.enqueue(script.text('ok'));
      await new OpenAIAdapter({ provider: 'openai', apiKey: KEY, baseUrl: `${fake.url}/v1` }).complete(request, { signal: new AbortController().signal });
    } finally {
      for (const n of names) {
        if (saved[n] === undefined) delete process.env[n];
        else process.env[n] = saved[n];
      }
    }
    const sent = fake.requests[0]!;
    expect(sent.headers.authorization).to.equal(`Bearer ${KEY}`);
    expect(sent.headers).to.not.have.any.keys('openai-organization', 'openai-project');
  });

  it('usage comes from the include_usage chunk; a server that sends none leaves it null', async () => {
    fake.enqueue(script.text('ok', { usage: { input: 90, output: 12 } }));
    const adapter = new OpenAIAdapter({ provider: 'openai', apiKey: KEY, baseUrl: `${fake.url}/v1` });
    const turn = await adapter.complete(request, { signal: new AbortController().signal });
    expect(turn.usage).to.deep.equal({ inputTokens: 90, outputTokens: 12, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(turn.requestId).to.match(/^req_fake/);
  });

  it('a refusal is the turn text with stopReason refusal', async () => {
    fake.enqueue(script.text('I cannot help with that.', { stop: 'refusal' }));
    const turn = await new OpenAIAdapter({ provider: 'openai', apiKey: KEY, baseUrl: `${fake.url}/v1` }).complete(request, { signal: new AbortController().signal });
    expect(turn).to.include({ text: 'I cannot help with that.', stopReason: 'refusal' });
  });

  it('an exhausted quota (429 insufficient_quota) is not retried: waiting does not refill it', async () => {
    fake.enqueue(script.error(429, { type: 'insufficient_quota', message: 'You exceeded your current quota' }), script.text('never'));
    const adapter = withRetries(new OpenAIAdapter({ provider: 'openai', apiKey: KEY, baseUrl: `${fake.url}/v1` }), { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 });
    const error = await adapter.complete(request, { signal: new AbortController().signal }).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(ProviderError);
    expect(error).to.include({ type: 'insufficient_quota', status: 429 });
    expect(fake.requests).to.have.length(1);
  });
});
