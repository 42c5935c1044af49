/**
 * The official `ollama` client is the oracle for fake-ollama: every scripted
 * stream goes through `chat({stream: true})` (which reads NDJSON line by
 * line, throws on an `{error}` line and on a stream without `done: true`),
 * and the JSON answer (`stream: false`) of the same script must equal what
 * the streamed lines add up to. The client has no accumulator, so the few
 * lines of adding up are here.
 */
import { expect } from 'chai';
import { Ollama, type ChatResponse } from 'ollama';
import { FAKE_OLLAMA_VERSION, startFakeOllama } from './fake-ollama.js';
import type { FakeProvider } from './fake-server.js';
import { script, type ScriptedTurn } from './script.js';

const request = { model: 'llama-test', messages: [{ role: 'user', content: 'hello' }] };

const TURNS: Record<string, ScriptedTurn> = {
  'plain text': script.text(['Hel', 'lo, ', 'world']),
  'multi-byte text': script.text('naïve café — ✓ 🧵 done'),
  'text then a tool call': script.text('Let me look.', { toolCalls: [{ name: 'read_thread', input: { thread: 'th_1', limit: 5 } }] }),
  'two tool calls': script.toolCalls([{ name: 'find', input: { q: 'x' } }, { name: 'fold', input: { thread: 'th_2', nested: { a: [1, 2, { b: null }] } } }]),
  'length': script.text('cut sh', { stop: 'max_tokens' }),
  'bytes split one by one (mid-UTF-8, mid-line)': script.text('ü✓🧵', { toolCalls: [{ name: 'x', input: { é: 'ß' } }], faults: { split: { pieceBytes: 1 } } }),
  'bytes split at odd offsets': script.text('splits', { faults: { split: [1, 9, 10, 33, 100, 101, 250] } }),
  'a stall mid-stream, then the rest': script.text('late', { faults: { stallAfterFrames: { frames: 2, ms: 150 } } }),
  'a slow drip': script.text('drip', { faults: { dripMs: 1 } }),
  'usage given': script.text('counted', { usage: { input: 1234, output: 56 } }),
};

/** What the streamed lines add up to: the content and tool calls of every line, the counts of the last. */
function accumulate(parts: ChatResponse[]): ChatResponse {
  const last = parts.at(-1)!;
  const toolCalls = parts.flatMap((p) => p.message.tool_calls ?? []);
  return { ...last, message: { ...last.message, content: parts.map((p) => p.message.content).join(''), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) } };
}

describe('fake-ollama, with ollama as the oracle', function () {
  this.timeout(20_000);
  let fake: FakeProvider;
  let client: Ollama;

  beforeEach(async () => {
    fake = await startFakeOllama({ models: ['llama-test'] });
    client = new Ollama({ host: fake.url });
  });
  afterEach(() => fake.close());

  for (const [name, turn] of Object.entries(TURNS)) {
    it(`${name}: the client reads every line to done, and the JSON answer equals the lines added up`, async () => {
      fake.enqueue(turn, turn);
      const parts: ChatResponse[] = [];
      for await (const part of await client.chat({ ...request, stream: true })) parts.push(part);
      expect(parts.slice(0, -1).every((p) => p.done === false)).to.equal(true);
      expect(parts.at(-1)).to.include({ done: true });
      expect(parts.at(-1)!.done_reason).to.equal(turn.stop === 'max_tokens' ? 'length' : 'stop');
      for (const call of parts.flatMap((p) => p.message.tool_calls ?? [])) expect(call).to.have.all.keys('function');

      const json = await client.chat({ ...request, stream: false });
      const { created_at: _a, ...jsonRest } = json;
      const { created_at: _b, ...streamedRest } = accumulate(parts);
      expect(jsonRest).to.deep.equal(streamedRest);
      expect(json.message.tool_calls?.map((c) => c.function)).to.deep.equal(turn.toolCalls?.map((c) => ({ name: c.name, arguments: c.input })));
      expect(fake.requests[0]!.headers['content-type']).to.equal('application/json');
      expect(fake.requests[0]!.body.stream).to.equal(true);
    });
  }

  it('streams by default: a request without `stream` gets NDJSON', async () => {
    fake.enqueue(script.text('default'));
    const response = await fetch(`${fake.url}/api/chat`, { method: 'POST', body: JSON.stringify(request) });
    expect(response.headers.get('content-type')).to.equal('application/x-ndjson');
    const lines = (await response.text()).trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).to.include({ done: true, done_reason: 'stop' });
    expect(lines.at(-1).eval_duration).to.be.a('number');
  });

  it('lists models and answers its version', async () => {
    expect((await client.list()).models.map((m) => m.name)).to.deep.equal(['llama-test']);
    expect((await client.version()).version).to.equal(FAKE_OLLAMA_VERSION);
  });

  it('an unknown model is a 404 {error}, as Ollama answers it', async () => {
    const error = await client.chat({ ...request, model: 'never-pulled' }).then(() => null, (e: unknown) => e);
    expect(error).to.include({ status_code: 404 });
    expect((error as Error).message).to.contain('not found, try pulling it first');
  });

  it('an HTTP 429 and a 500 are ResponseErrors with the status', async () => {
    fake.enqueue(script.error(429, { retryAfter: '1', message: 'too many requests' }), script.error(500, { message: 'boom' }));
    for (const status of [429, 500]) {
      const error = await client.chat({ ...request, stream: true }).then(() => null, (e: unknown) => e);
      expect(error).to.include({ status_code: status });
    }
  });

  it('an {error} line mid-stream, a reset and a missing done line each fail the stream', async () => {
    fake.enqueue(
      script.text('partial text here', { faults: { errorAfterFrames: { frames: 2, type: 'error', message: 'model runner has unexpectedly stopped' } } }),
      script.text('abc', { faults: { resetAfterFrames: 2 } }),
      script.text('abc', { faults: { omitTerminator: true } }),
    );
    for (let i = 0; i < 3; i++) {
      const error = await (async () => {
        for await (const _ of await client.chat({ ...request, stream: true }));
      })().then(() => null, (e: unknown) => e);
      expect(error, `script ${i}`).to.be.instanceOf(Error);
    }
  });

  it('observed client behaviour the adapter must cover: a malformed line is skipped with a console warning, not thrown', async () => {
    fake.enqueue(script.text(['a', 'b', 'c'], { faults: { malformedFrame: 1 } }));
    const warn = console.warn;
    const warnings: unknown[] = [];
    console.warn = (...args: unknown[]) => void warnings.push(args);
    try {
      const parts: ChatResponse[] = [];
      for await (const part of await client.chat({ ...request, stream: true })) parts.push(part);
      expect(parts.map((p) => p.message.content).join('')).to.equal('ac');
    } finally {
      console.warn = warn;
    }
    expect(warnings).to.have.length(1);
  });
});
