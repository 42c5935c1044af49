/**
 * The official `@anthropic-ai/sdk` is the oracle for fake-anthropic: every
 * scripted stream goes through `messages.stream().finalMessage()` (whose
 * accumulator refuses a wrong event order) and through raw
 * `create({stream: true})`, and the JSON answer of the same script must equal
 * the streamed final message. A fake that drifts from the real protocol
 * fails here before any adapter test can pass on a wrong premise.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { startFakeAnthropic } from './fake-anthropic.js';
import type { FakeProvider } from './fake-server.js';
import { script, type ScriptedTurn } from './script.js';

const params = { model: 'claude-test', max_tokens: 256, messages: [{ role: 'user' as const, content: 'hello' }] };

const TURNS: Record<string, ScriptedTurn> = {
  'plain text': script.text(['Hel', 'lo, ', 'world']),
  'multi-byte text': script.text('naïve café — ✓ 🧵 done'),
  'text then a tool call': script.text('Let me look.', { toolCalls: [{ name: 'read_thread', input: { thread: 'th_1', limit: 5 } }] }),
  'two parallel tool calls': script.toolCalls([
    { id: 'toolu_a', name: 'find', input: { q: 'x' } },
    { id: 'toolu_b', name: 'fold', input: { thread: 'th_2', nested: { a: [1, 2, { b: null }] } } },
  ]),
  'tool input in many fragments': script.toolCalls([{ name: 'write', input: { text: 'ünïcode' }, fragments: ['{"te', 'xt": "ü', 'nïc', 'ode"', '}'] }]),
  'no-argument tool': script.toolCalls([{ name: 'now', input: {}, fragments: [] }]),
  'max_tokens': script.text('cut sh', { stop: 'max_tokens' }),
  'stop_sequence': script.text('until', { stop: 'stop_sequence' }),
  'refusal': script.text('I will not', { stop: 'refusal' }),
  'pause_turn': script.text('paused', { stop: 'pause_turn' }),
  'model_context_window_exceeded': script.text('full', { stop: 'model_context_window_exceeded' }),
  'pings everywhere': script.text(['a', 'b'], { faults: { pingsAt: [0, 1, 2, 3, 4, 5, 6] } }),
  'an unknown event type': script.text('new events are ignored', { faults: { unknownEventAt: 3 } }),
  'bytes split one by one (mid-UTF-8, mid-line)': script.text('ü✓🧵', { toolCalls: [{ name: 'x', input: { é: 'ß' } }], faults: { split: { pieceBytes: 1 } } }),
  'bytes split at odd offsets': script.text('splits', { faults: { split: [1, 9, 10, 33, 100, 101, 250] } }),
  'a stall mid-stream, then the rest': script.text('late', { faults: { stallAfterFrames: { frames: 3, ms: 150 } } }),
  'a slow drip': script.text('drip', { faults: { dripMs: 1 } }),
  'usage given': script.text('counted', { usage: { input: 1234, output: 56 } }),
};

/** A message as it crossed the wire: without the per-request id and the SDK's own `parsed_output`. */
function wire(message: object): unknown {
  const { id: _id, parsed_output: _parsed, ...rest } = JSON.parse(JSON.stringify(message));
  return rest;
}

describe('fake-anthropic, with @anthropic-ai/sdk as the oracle', function () {
  this.timeout(20_000);
  let fake: FakeProvider;
  let client: Anthropic;

  beforeEach(async () => {
    fake = await startFakeAnthropic();
    client = new Anthropic({ apiKey: 'sk-ant-test', baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
  });
  afterEach(() => fake.close());

  for (const [name, turn] of Object.entries(TURNS)) {
    it(`${name}: the SDK accumulates the stream, raw events come in order, and the JSON answer equals the final message`, async () => {
      fake.enqueue(turn, turn, turn);
      const final = await client.messages.stream(params).finalMessage();

      const raw = await client.messages.create({ ...params, stream: true });
      const types: string[] = [];
      for await (const event of raw) types.push(event.type);
      expect(types[0]).to.equal('message_start');
      expect(types.slice(-2)).to.deep.equal(['message_delta', 'message_stop']);
      const blocks = types.filter((t) => t === 'content_block_start').length;
      expect(types.filter((t) => t === 'content_block_stop').length).to.equal(blocks);
      expect(final.content).to.have.length(blocks);

      const json = await client.messages.create(params);
      expect(wire(json)).to.deep.equal(wire(final));
      expect(final.stop_reason).to.equal(turn.stop ?? (turn.toolCalls ? 'tool_use' : 'end_turn'));
      for (const [i, call] of (turn.toolCalls ?? []).entries()) {
        const block = final.content.filter((b) => b.type === 'tool_use')[i]!;
        expect(block).to.include({ name: call.name });
        expect(block.input).to.deep.equal(call.input);
      }
      // The API takes the key as x-api-key (the docs) or as a Bearer token (what SDK 1.14 sends); the adapter sends x-api-key.
      for (const r of fake.requests) {
        expect(r.headers['x-api-key'] ?? r.headers.authorization).to.be.oneOf(['sk-ant-test', 'Bearer sk-ant-test']);
        expect(r.headers['anthropic-version']).to.match(/^\d{4}-\d{2}-\d{2}$/);
      }
    });
  }

  it('usage is in message_start and cumulative (overwritten, not added) in message_delta', async () => {
    fake.enqueue(script.text('x', { usage: { input: 40, output: 9 } }));
    const events: any[] = [];
    for await (const event of await client.messages.create({ ...params, stream: true })) events.push(event);
    expect(events[0].message.usage).to.include({ input_tokens: 40, output_tokens: 1 });
    expect(events.find((e) => e.type === 'message_delta').usage).to.include({ output_tokens: 9 });
  });

  it('the first input_json_delta of a tool block is the empty string', async () => {
    fake.enqueue(script.toolCalls([{ name: 'f', input: { a: 1 } }]));
    const deltas: string[] = [];
    for await (const event of await client.messages.create({ ...params, stream: true })) {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') deltas.push(event.delta.partial_json);
    }
    expect(deltas[0]).to.equal('');
    expect(JSON.parse(deltas.join(''))).to.deep.equal({ a: 1 });
  });

  it('an HTTP 429 carries retry-after, the request-id header and rate_limit_error', async () => {
    fake.enqueue(script.error(429, { retryAfter: '7' }));
    const error = await client.messages.create(params).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(Anthropic.RateLimitError);
    expect(error).to.include({ status: 429, type: 'rate_limit_error' });
    expect((error as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).to.equal('7');
    expect((error as InstanceType<typeof Anthropic.APIError>).requestID).to.match(/^req_fake/);
  });

  for (const [status, type] of [[529, 'overloaded_error'], [500, 'api_error'], [401, 'authentication_error'], [400, 'invalid_request_error']] as const) {
    it(`an HTTP ${status} is ${type} in Anthropic's error body, streamed or not`, async () => {
      fake.enqueue(script.error(status), script.error(status));
      for (const call of [() => client.messages.create(params), () => client.messages.stream(params).finalMessage()]) {
        const error = await call().then(() => null, (e: unknown) => e);
        expect(error).to.be.instanceOf(Anthropic.APIError);
        expect(error).to.include({ status, type });
      }
    });
  }

  it('a mid-stream error event fails the stream with the error type (the 200 has already gone out)', async () => {
    fake.enqueue(script.text('partial text here', { faults: { errorAfterFrames: { frames: 4, type: 'overloaded_error', message: 'Overloaded' } } }));
    const error = await client.messages.stream(params).finalMessage().then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(Anthropic.APIError);
    expect(error).to.include({ type: 'overloaded_error', status: undefined });
  });

  it('a reset after N events fails the stream; a malformed event fails it with a JSON error', async () => {
    fake.enqueue(script.text('abc', { faults: { resetAfterFrames: 3 } }), script.text('abc', { faults: { malformedFrame: 3 } }));
    const reset = await client.messages.stream(params).finalMessage().then(() => null, (e: unknown) => e);
    expect(reset).to.be.instanceOf(Error);
    const malformed = await client.messages.stream(params).finalMessage().then(() => null, (e: unknown) => e);
    expect(malformed).to.be.instanceOf(Anthropic.AnthropicError).and.not.be.instanceOf(Anthropic.APIError);
    expect((malformed as Error).message).to.match(/JSON/);
    expect((await fake.closedRequest(0)).closedEarly).to.equal(true);
  });

  it('a stall before headers runs into the client timeout', async () => {
    fake.enqueue(script.text('never', { faults: { stallBeforeHeadersMs: 2_000 } }));
    const error = await new Anthropic({ apiKey: 'k', baseURL: fake.url, maxRetries: 0, timeout: 100, logLevel: 'off' }).messages.create(params).then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(Anthropic.APIConnectionTimeoutError);
  });

  it('a stream without message_stop yields no final message', async () => {
    fake.enqueue(script.text('truncated', { faults: { omitTerminator: true } }));
    const error = await client.messages.stream(params).finalMessage().then(() => null, (e: unknown) => e);
    expect(error).to.be.instanceOf(Anthropic.AnthropicError);
  });

  it('the fake refuses what the API refuses: an unanswered tool_use and an empty text block', async () => {
    const unanswered = await client.messages
      .create({
        ...params,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
          { role: 'user', content: 'no result' },
        ],
      })
      .then(() => null, (e: unknown) => e);
    expect(unanswered).to.include({ status: 400, type: 'invalid_request_error' });
    const empty = await client.messages.create({ ...params, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }).then(() => null, (e: unknown) => e);
    expect(empty).to.include({ status: 400 });
    expect(fake.pending()).to.equal(0);
  });
});
