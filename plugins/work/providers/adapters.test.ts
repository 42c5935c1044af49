/**
 * One suite, run against all three adapters over real sockets, each against
 * its protocol-exact fake: a turn streams in with its usage, tool calls
 * round-trip in the vendor's shape, split bytes parse to the same turn,
 * every injected fault ends in a ProviderError or, through the retry
 * policy, a retried success (never a hang: every test has a timeout), and
 * an abort closes the provider's socket within 100 ms.
 */
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { inspect } from 'node:util';
import type { FakeProvider } from '../../../test/fakes/fake-server.js';
import { adapterFor, VENDORS } from '../../../test/fakes/provider-harness.js';
import { script, type ScriptedResponse } from '../../../test/fakes/script.js';
import { ProviderError, withRetries, type ModelDelta, type ModelRequest, type ModelTurn, type RetryNotice, type RetryPolicy } from './index.js';

const FAST: RetryPolicy = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 1_000 };
const TOOLS = [
  { name: 'find', description: 'Find records.', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
  { name: 'fold', description: 'Fold a thread.', inputSchema: { type: 'object', properties: { thread: { type: 'string' } } } },
];

function ask(model: string, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model, system: 'You are a test.', messages: [{ role: 'user', text: 'Go.' }], tools: TOOLS, maxTokens: 512, ...extra };
}

const live = () => new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).to.be.instanceOf(ProviderError);
  return error as ProviderError;
}

/** A turn without what differs between two answers of one script (request ids, minted call ids). */
function shape(turn: ModelTurn) {
  return { ...turn, requestId: null, toolCalls: turn.toolCalls.map(({ id: _id, ...call }) => call) };
}

for (const vendor of VENDORS) {
  describe(`${vendor.provider} adapter, against its fake over a real socket`, function () {
    this.timeout(10_000);
    let fake: FakeProvider;

    beforeEach(async () => {
      fake = await vendor.startFake();
    });
    afterEach(() => fake.close());

    it('streams a text turn: the text, its deltas in order, end_turn, and the usage and model the provider reported', async () => {
      fake.enqueue(script.text(['Hé', 'llo ', 'wörld'], { usage: { input: 321, output: 17 } }));
      const deltas: ModelDelta[] = [];
      const turn = await adapterFor(vendor, fake).complete(ask(vendor.model), { signal: live(), onDelta: (d) => deltas.push(d) });
      expect(turn).to.deep.include({ text: 'Héllo wörld', toolCalls: [], stopReason: 'end_turn', model: vendor.model });
      expect(turn.usage).to.include({ inputTokens: 321, outputTokens: 17 });
      expect(deltas.map((d) => (d.type === 'text' ? d.text : '')).join('')).to.equal('Héllo wörld');
      expect(turn.requestId === null).to.equal(vendor.provider === 'ollama');
    });

    it('returns parallel tool calls with distinct ids, and sends their results back so the next turn is accepted', async () => {
      fake.enqueue(
        script.text('Looking.', { toolCalls: [{ name: 'find', input: { q: 'ünï' } }, { name: 'fold', input: { thread: 'th_1', deep: { a: [1, null] } } }] }),
        script.text('Done.'),
      );
      const adapter = adapterFor(vendor, fake);
      const deltas: ModelDelta[] = [];
      const first = await adapter.complete(ask(vendor.model), { signal: live(), onDelta: (d) => deltas.push(d) });
      expect(first.stopReason).to.equal('tool_use');
      expect(first.toolCalls.map((c) => [c.name, c.input])).to.deep.equal([['find', { q: 'ünï' }], ['fold', { thread: 'th_1', deep: { a: [1, null] } }]]);
      expect(new Set(first.toolCalls.map((c) => c.id)).size).to.equal(2);
      expect(deltas.filter((d) => d.type === 'tool_call').map((d) => d.type === 'tool_call' && d.id)).to.deep.equal(first.toolCalls.map((c) => c.id));

      const second = await adapter.complete(
        ask(vendor.model, {
          messages: [
            { role: 'user', text: 'Go.' },
            { role: 'assistant', text: first.text, toolCalls: first.toolCalls },
            { role: 'tool_results', results: [{ callId: first.toolCalls[0]!.id, content: '3 records', isError: false }, { callId: first.toolCalls[1]!.id, content: 'no such thread', isError: true }] },
          ],
        }),
        { signal: live() },
      );
      expect(second).to.deep.include({ text: 'Done.', stopReason: 'end_turn' });
      expect(fake.requests.map((r) => r.unscripted ?? false)).to.deep.equal([false, false]);
    });

    it('maps the stop reasons: max_tokens, refusal, and a value it does not know', async () => {
      fake.enqueue(script.text('cut', { stop: 'max_tokens' }), script.text('no', { stop: 'refusal' }), script.text('?', { rawStop: 'something_new' }));
      const adapter = adapterFor(vendor, fake);
      expect((await adapter.complete(ask(vendor.model), { signal: live() })).stopReason).to.equal('max_tokens');
      expect((await adapter.complete(ask(vendor.model), { signal: live() })).stopReason).to.equal(vendor.canRefuse ? 'refusal' : 'end_turn');
      const unknown = await adapter.complete(ask(vendor.model), { signal: live() });
      expect(unknown).to.include({ stopReason: 'other', rawStopReason: 'something_new' });
    });

    it('parses bytes split one at a time (inside UTF-8 characters and lines) into the same turn as unsplit', async () => {
      const turn = (split?: { pieceBytes: number }) =>
        script.text(['ü✓', '🧵 and ', 'ß'], { toolCalls: [{ name: 'find', input: { q: 'é🧵' } }], usage: { input: 5, output: 6 }, ...(split ? { faults: { split } } : {}) });
      fake.enqueue(turn(), turn({ pieceBytes: 1 }), turn({ pieceBytes: 7 }));
      const adapter = adapterFor(vendor, fake);
      const whole = await adapter.complete(ask(vendor.model), { signal: live() });
      expect(whole.text).to.equal('ü✓🧵 and ß');
      for (let i = 0; i < 2; i++) expect(shape(await adapter.complete(ask(vendor.model), { signal: live() }))).to.deep.equal(shape(whole));
    });

    it('a slow drip under the idle timeout completes', async () => {
      fake.enqueue(script.text('drip, drip', { faults: { dripMs: 1 } }));
      const turn = await adapterFor(vendor, fake, { idleTimeoutMs: 200 }).complete(ask(vendor.model), { signal: live() });
      expect(turn.text).to.equal('drip, drip');
    });

    const mid = vendor.framesBeforeContent + 1;
    const FAULTS: Array<{ name: string; fault: ScriptedResponse; expected: Partial<ProviderError>; retried: boolean }> = [
      { name: 'HTTP 429 with retry-after', fault: script.error(429, { retryAfter: '0.05', message: 'slow down' }), expected: { status: 429, retryAfterMs: 50 }, retried: true },
      { name: `HTTP ${vendor.overloadStatus} (overloaded)`, fault: script.error(vendor.overloadStatus), expected: { status: vendor.overloadStatus }, retried: true },
      { name: 'HTTP 500', fault: script.error(500, { message: 'internal' }), expected: { status: 500 }, retried: true },
      {
        name: 'an error inside the 200 stream',
        fault: script.text('partial answer', { faults: { errorAfterFrames: { frames: mid, type: vendor.streamError.scripted, message: 'Overloaded' } } }),
        expected: { type: vendor.streamError.reported, status: null },
        retried: true,
      },
      { name: 'a connection reset mid-answer', fault: script.text('partial answer', { faults: { resetAfterFrames: mid } }), expected: { type: 'connection_error' }, retried: true },
      { name: 'a connection reset before the headers', fault: script.text('x', { faults: { resetBeforeHeaders: true } }), expected: { type: 'connection_error' }, retried: true },
      { name: 'a stall mid-answer', fault: script.text('partial answer', { faults: { stallAfterFrames: { frames: mid, ms: 5_000 } } }), expected: { type: 'stream_stalled' }, retried: true },
      { name: 'a stall before the headers', fault: script.text('x', { faults: { stallBeforeHeadersMs: 5_000 } }), expected: { type: 'stream_stalled' }, retried: true },
      { name: 'malformed JSON in the stream', fault: script.text('partial answer', { faults: { malformedFrame: mid } }), expected: { type: 'malformed_response' }, retried: false },
      { name: 'a stream without its terminator', fault: script.text('partial answer', { faults: { omitTerminator: true, omitFinishReason: true } }), expected: { type: 'malformed_response' }, retried: false },
    ];

    for (const { name, fault, expected, retried } of FAULTS) {
      it(`${name}: one attempt fails with ${JSON.stringify(expected)}; the retry policy ${retried ? 'recovers' : 'gives up at once'}`, async () => {
        fake.enqueue(fault, fault, script.text('recovered'));
        const adapter = adapterFor(vendor, fake, { idleTimeoutMs: 150 });
        const error = await rejection(adapter.complete(ask(vendor.model), { signal: live() }));
        expect(error).to.include({ provider: vendor.provider, ...expected });

        const notices: RetryNotice[] = [];
        const attempt = withRetries(adapter, FAST).complete(ask(vendor.model), { signal: live(), onRetry: (n) => notices.push(n) });
        if (retried) {
          expect((await attempt).text).to.equal('recovered');
          expect(notices).to.have.length(1);
          expect(notices[0]!.error).to.include(expected);
          expect(fake.requests).to.have.length(3);
        } else {
          expect(await rejection(attempt)).to.include(expected);
          expect(notices).to.have.length(0);
          expect(fake.requests).to.have.length(2);
        }
      });
    }

    it('an abort closes the provider socket within 100 ms and rejects as aborted; nothing is retried after it', async () => {
      fake.enqueue(script.text(Array<string>(100).fill('slow '), { faults: { dripMs: 1 } }), script.text('never asked'));
      const controller = new AbortController();
      const deltas: ModelDelta[] = [];
      const call = withRetries(adapterFor(vendor, fake), FAST).complete(ask(vendor.model), { signal: controller.signal, onDelta: (d) => deltas.push(d) });
      while (deltas.length === 0) await new Promise((r) => setTimeout(r, 5));
      const abortedAt = performance.now();
      controller.abort();
      const error = await rejection(call);
      const rejectedAt = performance.now();
      const request = await fake.closedRequest(0);
      expect(error).to.include({ type: 'aborted', provider: vendor.provider });
      expect(request.closedEarly).to.equal(true);
      expect(request.closedAt! - abortedAt).to.be.below(100);
      expect(rejectedAt - abortedAt).to.be.below(100);
      expect(fake.requests).to.have.length(1);
    });

    it('an abort during the wait before a retry ends the call at once and sends nothing more', async () => {
      fake.enqueue(script.error(429, { retryAfter: '0.8' }), script.text('never asked'));
      const controller = new AbortController();
      const call = withRetries(adapterFor(vendor, fake), FAST).complete(ask(vendor.model), { signal: controller.signal, onRetry: () => setTimeout(() => controller.abort(), 20) });
      const started = performance.now();
      expect(await rejection(call)).to.include({ type: 'aborted' });
      expect(performance.now() - started).to.be.below(500);
      expect(fake.requests).to.have.length(1);
    });

    it('an already aborted signal sends nothing', async () => {
      const controller = new AbortController();
      controller.abort();
      expect(await rejection(adapterFor(vendor, fake).complete(ask(vendor.model), { signal: controller.signal }))).to.include({ type: 'aborted' });
      expect(fake.requests).to.have.length(0);
    });

    if (vendor.apiKey !== null) {
      const key = vendor.apiKey;
      it('a 401 that echoes the key, whole or masked, leaves no trace of it in the error', async () => {
        fake.enqueue(script.error(401, { message: `invalid key ${key}; expected something else` }), script.error(401, { message: `Incorrect API key provided: ${key.slice(0, 3)}****${key.slice(-4)}.` }));
        for (let i = 0; i < 2; i++) {
          const error = await rejection(withRetries(adapterFor(vendor, fake), FAST).complete(ask(vendor.model), { signal: live() }));
          expect(error).to.include({ status: 401 });
          for (const text of [error.message, inspect(error), JSON.stringify(error), String(error.stack)]) {
            expect(text).not.to.contain(key);
            expect(text).not.to.contain(key.slice(-4));
          }
        }
        expect(fake.requests).to.have.length(2);
      });
    }
  });
}
