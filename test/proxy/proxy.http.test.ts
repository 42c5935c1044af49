/**
 * G8: the chat proxy is wire-exact. The official `@anthropic-ai/sdk` is the
 * client, configured as any Anthropic-API client would be (baseURL
 * `<loom>/v1/proxy`, the Loom bearer as authToken), against a real Loom in
 * front of the protocol-exact provider fakes: JSON and streamed messages, a
 * tool-use round trip, the provider's errors and Loom's, the records of each
 * exchange read back, no secret crossing either way, and the first byte of
 * a stream reaching the client within 20 ms of the provider writing it.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { request as httpRequest } from 'node:http';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { bearer, type Credential } from '../helpers/auth.js';
import { loopWorld, MODEL_OF, type LoopWorld } from '../work/loop-harness.js';

const anthropic = VENDORS.find((v) => v.provider === 'anthropic')!;
const openai = VENDORS.find((v) => v.provider === 'openai')!;
const ollama = VENDORS.find((v) => v.provider === 'ollama')!;

function client(world: LoopWorld, who: Credential | string = world.owner): Anthropic {
  const token = typeof who === 'string' ? who : who.token;
  return new Anthropic({ baseURL: `${world.server.url}/v1/proxy`, authToken: token, apiKey: null, maxRetries: 0, logLevel: 'off' });
}

const ask = (text: string, extra: Partial<Anthropic.Messages.MessageCreateParamsNonStreaming> = {}) => ({ model: MODEL_OF['anthropic']!, max_tokens: 256, messages: [{ role: 'user' as const, content: text }], ...extra });

const WEATHER: Anthropic.Messages.Tool = { name: 'get_weather', description: 'The weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

/** A message as it crossed the wire: without its per-exchange id and the SDK's own client-side `parsed_output`. */
function wire(message: Anthropic.Messages.Message): Record<string, unknown> {
  const { id: _id, parsed_output: _parsed, ...rest } = JSON.parse(JSON.stringify(message));
  return rest;
}

/** Every text a response or a record could carry a secret in. */
function assertNoSecret(text: string, secrets: readonly string[]): void {
  for (const secret of secrets) expect(text, 'a secret crossed').to.not.include(secret);
}

/** Raw SSE: the event names in order, as the bytes came. */
async function rawEvents(world: LoopWorld, body: Record<string, unknown>): Promise<{ status: number; headers: Headers; names: string[]; text: string }> {
  const response = await fetch(`${world.server.url}/v1/proxy/v1/messages`, { method: 'POST', headers: { ...bearer(world.owner), 'content-type': 'application/json', 'anthropic-version': '2099-01-01', 'accept-encoding': 'gzip, br' }, body: JSON.stringify(body) });
  const text = await response.text();
  const names = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]!);
  return { status: response.status, headers: response.headers, names, text };
}

describe('chat proxy: the Anthropic SDK through Loom (G8)', function () {
  this.timeout(60_000);

  describe('in front of fake-anthropic', () => {
    let world: LoopWorld;
    before(async () => {
      world = await loopWorld(anthropic);
    });
    after(async () => world?.stop());

    it('answers a JSON message, records request and response on a new thread the caller reads back', async () => {
      world.fake.enqueue(script.text('Hello from the fake', { usage: { input: 20, output: 6 } }));
      const { data: message, response } = await client(world).messages.create(ask('Hi')).withResponse();
      expect(message).to.include({ type: 'message', role: 'assistant', stop_reason: 'end_turn', stop_sequence: null, model: MODEL_OF['anthropic'] });
      expect(message.id).to.match(/^msg_[0-9a-f]{24}$/);
      expect(message.content).to.deep.equal([{ type: 'text', text: 'Hello from the fake', citations: null }]);
      expect(message.usage).to.deep.include({ input_tokens: 20, output_tokens: 6 });
      const thread = response.headers.get('x-loom-thread')!;
      expect(thread).to.match(/^th_[0-9a-f]{64}$/);
      const answer = await world.call('GET', `/v1/threads/${thread}/records`, world.owner);
      expect(answer.status).to.equal(200);
      const kinds = answer.json.data.map((r: any) => r.body.kind);
      expect(kinds).to.deep.equal(['core.work.proxy_request.v1', 'core.work.proxy_response.v1']);
      const [req, res] = answer.json.data;
      expect(req.id).to.equal(response.headers.get('request-id'));
      expect(req.actor).to.equal(answer.json.data[0].actor);
      expect(req.body).to.include({ model: MODEL_OF['anthropic'], provider: 'anthropic', stream: false, max_tokens: 256, max_tokens_sent: 256, truncated: false });
      expect(req.body.request.messages).to.deep.equal([{ role: 'user', content: 'Hi' }]);
      expect(res.parents).to.deep.equal([req.id]);
      // claude-haiku-4-5: 1 USD in, 5 USD out per million tokens.
      expect(res.body.cost_usd).to.be.closeTo((20 * 1 + 6 * 5) / 1e6, 1e-12);
      expect(res.body.usage).to.deep.include({ input_tokens: 20, output_tokens: 6 });
      expect(res.body.content).to.deep.equal(message.content);
    });

    it('streams: finalMessage() equals the JSON answer of the same script (ids aside), the accumulator raises nothing', async () => {
      const turn = script.text(['Str', 'eam', 'ed ✓'], { usage: { input: 9, output: 4 } });
      world.fake.enqueue(turn, turn);
      const json = await client(world).messages.create(ask('Same'));
      const errors: unknown[] = [];
      const stream = client(world).messages.stream(ask('Same'));
      stream.on('error', (e) => errors.push(e));
      const streamed = await stream.finalMessage();
      expect(errors).to.deep.equal([]);
      // Each exchange is its own request record and so its own message id: the two differ by construction.
      expect(streamed.id).to.not.equal(json.id);
      expect(wire(streamed)).to.deep.equal(wire(json));
    });

    it('a tool-use round trip: tool_use with parsed input streamed as input_json_delta, the tool_result answered', async () => {
      const turn = script.toolCalls([{ id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }], { text: 'Let me look.' });
      world.fake.enqueue(turn, turn, script.text('It is sunny in Paris.'));
      const c = client(world);
      const first = await c.messages.create(ask('Weather in Paris?', { tools: [WEATHER], tool_choice: { type: 'auto' } }));
      expect(first.stop_reason).to.equal('tool_use');
      expect(first.content).to.deep.equal([
        { type: 'text', text: 'Let me look.', citations: null },
        { type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
      ]);
      const jsonDeltas: string[] = [];
      const stream = c.messages.stream(ask('Weather in Paris?', { tools: [WEATHER] }));
      stream.on('inputJson', (partial) => jsonDeltas.push(partial));
      const streamed = await stream.finalMessage();
      expect(wire(streamed)).to.deep.equal(wire(first));
      expect(jsonDeltas.join('')).to.equal(JSON.stringify({ city: 'Paris' }));
      const second = await c.messages.create({
        ...ask('Weather in Paris?', { tools: [WEATHER] }),
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'sunny, 24°C' }] },
        ],
      });
      expect(second.content).to.deep.equal([{ type: 'text', text: 'It is sunny in Paris.', citations: null }]);
      const sent = world.fake.requests.at(-1)!.body;
      expect(sent.messages.at(-1)).to.deep.equal({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'sunny, 24°C', is_error: false }] });
      expect(sent.tool_choice).to.equal(undefined);
      expect(world.fake.requests.at(-3)!.body.tool_choice).to.deep.equal({ type: 'auto' });
    });

    it('the raw stream: every event in order with its event: line, a ping after the first block start, uncompressed', async () => {
      world.fake.enqueue(script.text('abc'));
      const raw = await rawEvents(world, { ...ask('x'), stream: true });
      expect(raw.status).to.equal(200);
      expect(raw.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(raw.headers.get('content-encoding')).to.equal('identity');
      expect(raw.names).to.deep.equal(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
      for (const frame of raw.text.split('\n\n').filter(Boolean)) {
        const [eventLine, dataLine] = frame.split('\n');
        expect(JSON.parse(dataLine!.slice('data: '.length)).type).to.equal(eventLine!.slice('event: '.length));
      }
    });

    it('relays the provider\'s 429 (with retry-after), 529 and 400 as Anthropic errors that also carry Loom\'s envelope, and records them', async () => {
      world.fake.enqueue(script.error(429, { retryAfter: '7' }), script.error(529), script.error(400, { message: 'messages: bad thing' }));
      const c = client(world);
      const e429 = await c.messages.create(ask('a')).catch((e: unknown) => e);
      expect(e429).to.be.instanceOf(Anthropic.RateLimitError);
      expect((e429 as any).headers?.get('retry-after')).to.equal('7');
      expect((e429 as any).error).to.deep.include({ type: 'error', object: 'error', code: 'PROVIDER_RATE_LIMITED' });
      expect((e429 as any).error.error.type).to.equal('rate_limit_error');
      const e529 = await c.messages.create(ask('b')).catch((e: unknown) => e);
      expect((e529 as any).status).to.equal(529);
      expect((e529 as any).error.error.type).to.equal('overloaded_error');
      expect((e529 as any).error.code).to.equal('PROVIDER_OVERLOADED');
      const e400 = await c.messages.create(ask('c')).catch((e: unknown) => e);
      expect(e400).to.be.instanceOf(Anthropic.BadRequestError);
      expect((e400 as any).error.error).to.deep.equal({ type: 'invalid_request_error', message: 'anthropic: messages: bad thing' });
      const thread = (e400 as any).headers!.get('x-loom-thread')!;
      const kinds = (await world.records(thread)).map((r: any) => [r.body.kind, r.body.status ?? null]);
      expect(kinds).to.deep.equal([
        ['core.work.proxy_request.v1', null],
        ['core.work.proxy_error.v1', 400],
      ]);
    });

    it('a failure after the first byte arrives as an SSE error event the SDK raises', async () => {
      world.fake.enqueue(script.text(['one ', 'two ', 'three'], { faults: { errorAfterFrames: { frames: 4, type: 'overloaded_error', message: 'Overloaded' } } }));
      const error = await client(world).messages.stream(ask('x')).finalMessage().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(Anthropic.APIError);
      expect((error as any).error.error.type).to.equal('overloaded_error');
      expect((error as any).error.code).to.equal('PROVIDER_OVERLOADED');
    });

    it('Loom refusals: 401 without a valid bearer, 400 for a bad request, 404 for a model not in the catalog; none writes a record', async () => {
      const before = await world.server.loom.engine.store.watermark();
      const unknown = await client(world, 'loom_prod_sa_nobody_' + 'A'.repeat(43)).messages.create(ask('x')).catch((e: unknown) => e);
      expect(unknown).to.be.instanceOf(Anthropic.AuthenticationError);
      expect((unknown as any).error.code).to.equal('AUTH_REQUIRED');
      const bad = await client(world).messages.create({ ...ask('x'), max_tokens: 0 }).catch((e: unknown) => e);
      expect(bad).to.be.instanceOf(Anthropic.BadRequestError);
      expect((bad as any).error).to.deep.include({ type: 'error', object: 'error', code: 'INVALID_SHAPE' });
      expect((bad as any).error.error.type).to.equal('invalid_request_error');
      const unanswered = await client(world)
        .messages.create({ ...ask('x'), messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] }, { role: 'user', content: 'no result' }] })
        .catch((e: unknown) => e);
      expect((unanswered as any).status).to.equal(400);
      const missing = await client(world).messages.create({ ...ask('x'), model: 'claude-nonexistent' }).catch((e: unknown) => e);
      expect(missing).to.be.instanceOf(Anthropic.NotFoundError);
      expect((missing as any).error.error.type).to.equal('not_found_error');
      expect(await world.server.loom.engine.store.watermark()).to.equal(before);
      expect(world.fake.pending()).to.equal(0);
    });

    it('no secret crosses: the provider sees neither the Loom bearer nor the client\'s headers; no provider key in answers or records', async () => {
      world.fake.enqueue(script.text('private'));
      const seen = world.fake.requests.length;
      const { response } = await new Anthropic({ baseURL: `${world.server.url}/v1/proxy`, authToken: world.owner.token, apiKey: null, maxRetries: 0, defaultHeaders: { 'x-custom-client': 'secret-client-header' } }).messages.create(ask('x')).withResponse();
      const upstream = world.fake.requests[seen]!;
      const headerText = JSON.stringify(upstream.headers) + upstream.rawBody;
      assertNoSecret(headerText, [world.owner.token, 'secret-client-header']);
      expect(upstream.headers['x-api-key']).to.equal(anthropic.apiKey);
      expect(upstream.headers['authorization']).to.equal(undefined);
      const thread = response.headers.get('x-loom-thread')!;
      const everything = JSON.stringify(await world.records(thread)) + JSON.stringify([...response.headers]);
      assertNoSecret(everything, [anthropic.apiKey!, world.owner.token]);
    });

    it('continues a thread named by x-loom-thread; a malformed one is refused', async () => {
      world.fake.enqueue(script.text('one'), script.text('two'));
      const c = client(world);
      const { response } = await c.messages.create(ask('first')).withResponse();
      const thread = response.headers.get('x-loom-thread')!;
      const again = await c.messages.create(ask('second'), { headers: { 'x-loom-thread': thread } }).withResponse();
      expect(again.response.headers.get('x-loom-thread')).to.equal(thread);
      expect((await world.records(thread)).map((r: any) => r.body.kind)).to.have.length(4);
      const bad = await c.messages.create(ask('x'), { headers: { 'x-loom-thread': 'th_nope' } }).catch((e: unknown) => e);
      expect((bad as any).status).to.equal(400);
    });

    it('first byte: the client gets Loom\'s first SSE byte within 20 ms (p50) of the fake writing its first frame, not after the stream ends', async () => {
      const STALL = 150;
      const runs = 24;
      const latencies: number[] = [];
      for (let i = 0; i < runs; i++) {
        // The fake writes its first frame, then holds the rest back STALL ms: a proxy that buffered would answer STALL ms late.
        // Latency is measured from the moment the fake wrote that frame (not from when its timer was due), so a loaded machine's late timers do not count against Loom.
        world.fake.enqueue(script.text('timing', { faults: { stallAfterFrames: { frames: 1, ms: STALL } } }));
        const index = world.fake.requests.length;
        const firstByteAt = await new Promise<number>((resolve, reject) => {
          const body = JSON.stringify({ ...ask('t'), stream: true });
          const req = httpRequest(`${world.server.url}/v1/proxy/v1/messages`, { method: 'POST', headers: { ...bearer(world.owner), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
            let at: number | null = null;
            res.on('data', () => {
              at ??= performance.now();
            });
            res.on('end', () => resolve(at!));
            res.on('error', reject);
          });
          req.on('error', reject);
          req.end(body);
        });
        const wroteAt = world.fake.requests[index]!.firstWriteAt;
        expect(wroteAt, 'the fake streamed its answer').to.be.a('number');
        latencies.push(firstByteAt - wroteAt!);
      }
      latencies.sort((a, b) => a - b);
      const p50 = latencies[Math.floor(runs / 2)]!;
      const p99 = latencies[Math.min(runs - 1, Math.ceil(runs * 0.99) - 1)]!;
      if (process.env['LOOM_TEST_FIGURES'] === '1') console.log(`      proxy first byte after the provider's first frame: p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${runs} runs)`);
      expect(p50).to.be.at.most(20);
      expect(latencies[0], 'no answer waited for the stall').to.be.below(STALL);
    });
  });

  for (const vendor of [openai, ollama]) {
    describe(`in front of fake-${vendor.provider}: an Anthropic client reaches a ${vendor.provider} model, translated`, () => {
      let world: LoopWorld;
      before(async () => {
        world = await loopWorld(vendor);
      });
      after(async () => world?.stop());

      it('text and tool calls come back as Anthropic blocks; the request goes out in the vendor\'s shape; stream equals JSON', async () => {
        const model = MODEL_OF[vendor.provider]!;
        const turn = script.toolCalls([{ id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } }], { text: 'Checking.', usage: { input: 30, output: 12 } });
        world.fake.enqueue(turn, turn);
        const c = client(world);
        const params = { ...ask('Weather in Oslo?', { tools: [WEATHER], tool_choice: { type: 'any' as const }, stop_sequences: ['END'], }), temperature: 0.2, model, system: 'Be brief.' };
        const json = await c.messages.create(params as Anthropic.Messages.MessageCreateParamsNonStreaming);
        expect(json.model).to.equal(model);
        expect(json.stop_reason).to.equal('tool_use');
        expect(json.content[0]).to.deep.equal({ type: 'text', text: 'Checking.', citations: null });
        expect(json.content[1]).to.deep.include({ type: 'tool_use', name: 'get_weather', input: { city: 'Oslo' } });
        expect(json.usage).to.deep.include({ input_tokens: 30, output_tokens: 12 });
        const streamed = await c.messages.stream(params as Anthropic.Messages.MessageCreateParamsNonStreaming).finalMessage();
        if (vendor.provider === 'ollama') {
          // Ollama sends calls without ids: Loom mints one per call, so two exchanges differ there too.
          expect((streamed.content[1] as Anthropic.Messages.ToolUseBlock).id).to.match(/^call_[0-9a-f]{24}$/);
          (streamed.content[1] as any).id = (json.content[1] as any).id;
        }
        expect(wire(streamed)).to.deep.equal(wire(json));
        const sent = world.fake.requests[0]!.body;
        if (vendor.provider === 'openai') {
          expect(sent.messages[0]).to.deep.equal({ role: 'system', content: 'Be brief.' });
          expect(sent.tool_choice).to.equal('required');
          expect(sent.stop).to.deep.equal(['END']);
          expect(sent.temperature).to.equal(0.2);
          expect(sent.tools[0]).to.deep.equal({ type: 'function', function: { name: 'get_weather', description: 'The weather in a city', parameters: WEATHER.input_schema } });
          assertNoSecret(JSON.stringify(world.fake.requests[0]!.headers), [world.owner.token]);
        } else {
          expect(sent.options).to.deep.include({ temperature: 0.2, stop: ['END'] });
        }
      });
    });
  }
});
