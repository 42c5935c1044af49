/**
 * The official `openai` SDK is the oracle for fake-openai: every scripted
 * stream goes through `chat.completions.stream().finalChatCompletion()`
 * (whose accumulator refuses a missing role, finish_reason or tool-call
 * name, and unknown delta fields) and through raw `create({stream: true})`,
 * and the JSON answer of the same script must equal the streamed final
 * completion.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import { startFakeOpenAI } from './fake-openai.js';
import type { FakeProvider } from './fake-server.js';
import { script, type ScriptedTurn } from './script.js';

const params = { model: 'gpt-test', messages: [{ role: 'user' as const, content: 'hello' }] };
const streamed = { ...params, stream_options: { include_usage: true } };

const TURNS: Record<string, ScriptedTurn> = {
  'plain text': script.text(['Hel', 'lo, ', 'world']),
  'multi-byte text': script.text('naïve café — ✓ 🧵 done'),
  'text then a tool call': script.text('Let me look.', { toolCalls: [{ name: 'read_thread', input: { thread: 'th_1', limit: 5 } }] }),
  'two parallel tool calls': script.toolCalls([
    { id: 'call_a', name: 'find', input: { q: 'x' } },
    { id: 'call_b', name: 'fold', input: { thread: 'th_2', nested: { a: [1, 2, { b: null }] } } },
  ]),
  'arguments in many fragments': script.toolCalls([{ name: 'write', input: { text: 'ünïcode' }, fragments: ['{"te', 'xt": "ü', 'nïc', 'ode"', '}'] }]),
  'length': script.text('cut sh', { stop: 'max_tokens' }),
  'a refusal': script.text('I cannot help with that.', { stop: 'refusal' }),
  'content_filter': script.text('filtered', { rawStop: 'content_filter' }),
  'bytes split one by one (mid-UTF-8, mid-line)': script.text('ü✓🧵', { toolCalls: [{ name: 'x', input: { é: 'ß' } }], faults: { split: { pieceBytes: 1 } } }),
  'bytes split at odd offsets': script.text('splits', { faults: { split: [1, 9, 10, 33, 100, 101, 250] } }),
  'a stall mid-stream, then the rest': script.text('late', { faults: { stallAfterFrames: { frames: 2, ms: 150 } } }),
  'a slow drip': script.text('drip', { faults: { dripMs: 1 } }),
  'usage given': script.text('counted', { usage: { input: 1234, output: 56 } }),
};

/** A completion as it crossed the wire: without the per-request id and time, and without the SDK's own `parsed` fields. */
function wire(completion: object): unknown {
  const { id: _id, created: _created, ...rest } = JSON.parse(JSON.stringify(completion, (key, value) => (key === 'parsed' || key === 'parsed_arguments' ? undefined : value)));
  return rest;
}

describe('fake-openai, with openai as the oracle', function () {
  this.timeout(20_000);
  let fake: FakeProvider;
  let client: OpenAI;

  beforeEach(async () => {
    fake = await startFakeOpenAI();
    client = new OpenAI({ apiKey: 'sk-test-0123456789', baseURL: `${fake.url}/v1`, maxRetries: 0, logLevel: 'off' });
  });
  afterEach(() => fake.close());

  for (const [name, turn] of Object.entries(TURNS)) {
    it(`${name}: the SDK accumulates the stream, chunks come in order, and the JSON answer equals the final completion`, async () => {
      fake.enqueue(turn, turn, turn);
      const final = await client.chat.completions.stream(streamed).finalChatCompletion();

      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of await client.chat.completions.create({ ...streamed, stream: true })) chunks.push(chunk);
      expect(chunks[0]!.choices[0]!.delta.role).to.equal('assistant');
      expect(chunks.at(-1)!.choices).to.deep.equal([]);
      expect(chunks.at(-1)!.usage).to.include({ total_tokens: final.usage!.total_tokens });
      expect(chunks.slice(0, -1).every((c) => c.usage === null)).to.equal(true);
      expect(new Set(chunks.map((c) => c.id)).size).to.equal(1);
      for (const c of chunks) for (const call of c.choices[0]?.delta.tool_calls ?? []) {
        const first = chunks.flatMap((k) => k.choices[0]?.delta.tool_calls ?? []).find((t) => t.index === call.index) === call;
        expect(call.id !== undefined, 'id only on the first fragment of an index').to.equal(first);
        expect(call.function?.name !== undefined, 'name only on the first fragment of an index').to.equal(first);
      }

      const json = await client.chat.completions.create(params);
      expect(wire(json)).to.deep.equal(wire(final));
      for (const [i, call] of (turn.toolCalls ?? []).entries()) {
        const made = final.choices[0]!.message.tool_calls![i]!;
        expect(made.type === 'function' && made.function.name).to.equal(call.name);
        expect(made.type === 'function' && JSON.parse(made.function.arguments)).to.deep.equal(call.input);
      }
      expect(fake.requests.every((r) => r.headers.authorization === 'Bearer sk-test-0123456789')).to.equal(true);
    });
  }

  it('without include_usage no chunk carries usage, and the stream still ends with [DONE]', async () => {
    fake.enqueue(script.text('no usage'));
    const chunks: any[] = [];
    for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) chunks.push(chunk);
    expect(chunks.every((c) => !('usage' in c))).to.equal(true);
    expect(chunks.at(-1).choices[0].finish_reason).to.equal('stop');
  });

  it('an HTTP 429 carries retry-after, x-request-id and the error type and code', async () => {
    fake.enqueue(script.error(429, { retryAfter: '2' }));
    const error = await client.chat.completions.create(params).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(OpenAI.RateLimitError);
    expect(error).to.include({ status: 429, type: 'tokens', code: 'rate_limit_exceeded' });
    expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).to.equal('2');
    expect((error as InstanceType<typeof OpenAI.APIError>).requestID).to.match(/^req_fake/);
  });

  for (const status of [500, 503, 400] as const) {
    it(`an HTTP ${status} is an APIError with OpenAI's error body, streamed or not`, async () => {
      fake.enqueue(script.error(status), script.error(status));
      for (const call of [() => client.chat.completions.create(params), () => client.chat.completions.stream(streamed).finalChatCompletion()]) {
        const error = await call().then(() => null, (e: unknown) => e);
        expect(error).to.be.instanceOf(OpenAI.APIError);
        expect(error).to.include({ status });
      }
    });
  }

  it('a 401 echoes the key masked, as OpenAI does', async () => {
    fake.enqueue(script.error(401));
    const error = await client.chat.completions.create(params).then(() => null, (e: unknown) => e);
    expect(error).to.include({ status: 401, code: 'invalid_api_key' });
    expect((error as Error).message).to.contain('sk-*');
  });

  it('an {error} chunk mid-stream fails the stream', async () => {
    fake.enqueue(script.text('partial text here', { faults: { errorAfterFrames: { frames: 2, type: 'server_error', message: 'boom' } } }));
    const error = await client.chat.completions.stream(streamed).finalChatCompletion().then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(OpenAI.APIError);
    expect(error).to.include({ type: 'server_error' });
  });

  it('a reset, a malformed chunk and a missing finish_reason each fail the stream', async () => {
    fake.enqueue(
      script.text('abc', { faults: { resetAfterFrames: 2 } }),
      script.text('abc', { faults: { malformedFrame: 2 } }),
      script.text('abc', { faults: { omitFinishReason: true } }),
    );
    for (let i = 0; i < 3; i++) {
      const error = await client.chat.completions.stream(streamed).finalChatCompletion().then(() => null, (e: unknown) => e);
      expect(error, `script ${i}`).to.be.instanceOf(Error);
    }
  });

  it('observed SDK behaviour the adapter must cover: a stream cut before [DONE] (after finish_reason) still yields a completion', async () => {
    fake.enqueue(script.text('truncated', { faults: { omitTerminator: true } }));
    const final = await client.chat.completions.stream(streamed).finalChatCompletion();
    expect(final.choices[0]!.message.content).to.equal('truncated');
  });

  it('the fake refuses what the API refuses: unanswered tool calls and a stray tool message', async () => {
    const unanswered = await client.chat.completions
      .create({ ...params, messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'user', content: 'hm' }] })
      .then(() => null, (e: unknown) => e);
    expect(unanswered).to.include({ status: 400 });
    const stray = await client.chat.completions.create({ ...params, messages: [{ role: 'user', content: 'go' }, { role: 'tool', tool_call_id: 'call_x', content: 'r' }] }).then(() => null, (e: unknown) => e);
    expect(stray).to.include({ status: 400 });
    expect(fake.pending()).to.equal(0);
  });
});
