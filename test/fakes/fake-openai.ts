/**
 * A scripted OpenAI Chat Completions API (`POST /v1/chat/completions`), as
 * the docs and the `openai` SDK's accumulator have it
 * (../shared/research/wave3-agents.md §1.2): a JSON `chat.completion`, or
 * with `stream: true` server-sent events without `event:` lines, `data:
 * <chunk>` each: a first chunk with `delta.role`, content deltas, tool-call
 * deltas whose id, type and name come only on the first fragment of each
 * `index`, a chunk with `finish_reason`, with `stream_options.include_usage`
 * a last chunk with `choices: []` and the usage (every other chunk then has
 * `usage: null`), and `data: [DONE]`. Errors use OpenAI's body `{error:
 * {message, type, param, code}}` and an `x-request-id` header; a 401 echoes
 * the key masked, as OpenAI does.
 */
import { applyFrameFaults, truncateJsonInFrame, type VendorFrames } from './frame-writer.js';
import { startFakeProvider, type Exchange, type FakeOptions, type FakeProvider } from './fake-server.js';
import { argumentFragments, mintedIds, stopOf, textFragments, usageOf, type ScriptedError, type ScriptedStop, type ScriptedTurn } from './script.js';

const ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
  429: { type: 'tokens', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' },
};

const FINISH: Record<ScriptedStop, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  refusal: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
};

export function startFakeOpenAI(options: FakeOptions = {}): Promise<FakeProvider> {
  let counter = 0;
  return startFakeProvider(async (exchange) => {
    const n = ++counter;
    const requestId = `req_fake${String(n).padStart(6, '0')}`;
    const { request } = exchange;
    if (request.method !== 'POST' || request.path.split('?')[0] !== '/v1/chat/completions') {
      return sendError(exchange, requestId, { kind: 'error', status: 404, message: `Unknown request URL: ${request.method} ${request.path}.` }, null);
    }
    const invalid = checkRequest(request.body);
    if (invalid) return sendError(exchange, requestId, { kind: 'error', status: 400, message: invalid }, null);
    const scripted = exchange.next();
    if (!scripted) return sendError(exchange, requestId, { kind: 'error', status: 500, message: 'fake-openai: nothing scripted for this request' }, null);
    const bearer = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (scripted.kind === 'error') return sendError(exchange, requestId, scripted, bearer);

    const completion = completionOf(scripted, request.body.model, n);
    if (request.body.stream === true) {
      const frames = applyFrameFaults(chunksOf(scripted, completion, request.body.stream_options?.include_usage === true), scripted.faults, SSE);
      return exchange.send(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': requestId }, frames, scripted.faults);
    }
    let body: Buffer = Buffer.from(JSON.stringify(completion), 'utf8');
    if (scripted.faults?.malformedFrame !== undefined) body = truncateJsonInFrame(body, 0);
    return exchange.send(200, { 'content-type': 'application/json', 'content-length': String(body.length), 'x-request-id': requestId }, [body], scripted.faults);
  }, options);
}

const SSE: VendorFrames = {
  errorFrame: (type, message) => data({ error: { message, type, param: null, code: null } }),
  malform: (frame) => truncateJsonInFrame(frame, 'data: '.length),
};

function data(value: unknown): Buffer {
  return Buffer.from(`data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`, 'utf8');
}

/** OpenAI's own masking of a wrong key in its 401 message: the first three and last four characters. */
function masked(key: string): string {
  return key.length > 8 ? `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}` : '****';
}

function sendError(exchange: Exchange, requestId: string, error: ScriptedError, key: string | null): Promise<void> {
  const known = ERRORS[error.status] ?? (error.status >= 500 ? ERRORS[500]! : ERRORS[400]!);
  let message = error.message ?? known.message;
  if (error.status === 401 && error.message === undefined && key) {
    message = `Incorrect API key provided: ${masked(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`;
  }
  const body = Buffer.from(JSON.stringify({ error: { message, type: error.type ?? known.type, param: null, code: known.code } }), 'utf8');
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.length), 'x-request-id': requestId };
  if (error.retryAfter !== undefined) headers['retry-after'] = error.retryAfter;
  return exchange.send(error.status, headers, [body], error.faults);
}

interface Completion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  system_fingerprint: string;
  choices: Array<{ index: 0; message: Record<string, unknown>; logprobs: null; finish_reason: string | null }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The JSON answer: exactly what the SDK's ChatCompletionStream accumulates from `chunksOf` with usage (the oracle test holds them equal). */
function completionOf(turn: ScriptedTurn, requestedModel: string, n: number): Completion {
  const stop = stopOf(turn);
  const text = textFragments(turn).join('');
  const ids = mintedIds(turn, 'call_fake');
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: stop === 'refusal' || text === '' ? null : text,
    refusal: stop === 'refusal' ? text : null,
  };
  if (turn.toolCalls?.length) {
    message.tool_calls = turn.toolCalls.map((call, i) => ({ id: call.id ?? ids[i], type: 'function', function: { name: call.name, arguments: argumentFragments(call).join('') } }));
  }
  const usage = usageOf(turn);
  return {
    id: `chatcmpl-fake${n}`,
    object: 'chat.completion',
    created: 1_767_225_600 + n,
    model: turn.model ?? requestedModel,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, message, logprobs: null, finish_reason: turn.faults?.omitFinishReason ? null : (turn.rawStop ?? FINISH[stop]) }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

function chunksOf(turn: ScriptedTurn, completion: Completion, includeUsage: boolean): Buffer[] {
  const { id, created, model, system_fingerprint } = completion;
  const message = completion.choices[0]!.message;
  const chunk = (choices: unknown[], usage?: unknown) =>
    data({ id, object: 'chat.completion.chunk', created, model, system_fingerprint, choices, ...(includeUsage ? { usage: usage ?? null } : {}) });
  const delta = (d: Record<string, unknown>, finish_reason: string | null = null) => chunk([{ index: 0, delta: d, logprobs: null, finish_reason }]);

  const refusal = message.refusal !== null;
  const fragments = textFragments(turn);
  const frames: Buffer[] = [delta({ role: 'assistant', content: fragments.length > 0 && !refusal ? '' : null, refusal: null })];
  for (const fragment of fragments) frames.push(delta(refusal ? { refusal: fragment } : { content: fragment }));
  for (const [index, call] of ((message.tool_calls ?? []) as Array<{ id: string; function: { name: string } }>).entries()) {
    frames.push(delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const fragment of argumentFragments(turn.toolCalls![index]!)) frames.push(delta({ tool_calls: [{ index, function: { arguments: fragment } }] }));
  }
  frames.push(delta({}, completion.choices[0]!.finish_reason));
  if (includeUsage) frames.push(chunk([], completion.usage));
  frames.push(data('[DONE]'));
  return frames;
}

/** The API's own refusals for requests an adapter could get wrong. */
function checkRequest(body: any): string | null {
  if (!body || typeof body !== 'object') return 'We could not parse the JSON body of your request.';
  if (typeof body.model !== 'string' || body.model === '') return "you must provide a model parameter";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "[] is too short - 'messages'";
  const open = new Set<string>();
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i];
    if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(message.role)) return `Invalid value: '${message.role}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`;
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) return "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
      continue;
    }
    if (open.size > 0) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
    if (message.role === 'assistant') for (const call of message.tool_calls ?? []) open.add(call.id);
  }
  if (open.size > 0) return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`;
  for (const tool of body.tools ?? []) {
    if (tool.type !== 'function' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function?.name ?? '')) return `Invalid 'tools': each must be {type: "function", function: {name}} with a name matching ^[a-zA-Z0-9_-]{1,64}$`;
  }
  return null;
}
