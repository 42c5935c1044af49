/**
 * A scripted Anthropic Messages API (`POST /v1/messages`), byte-exact to the
 * docs (../shared/research/wave3-agents.md §1.1): a JSON `Message`, or with
 * `stream: true` server-sent events, each with its `event:` line (the SDK
 * dispatches on it, not on `data.type`), in the documented order:
 * message_start (usage with input_tokens), per block content_block_start /
 * deltas / content_block_stop (tool input as `input_json_delta` fragments,
 * the first one ""), message_delta (stop_reason, cumulative usage),
 * message_stop; `ping` wherever the script puts it. Errors use Anthropic's
 * body `{type:"error", error:{type, message}, request_id}`; every answer has
 * a `request-id` header. A light request check answers 400
 * invalid_request_error as the API does for the mistakes an adapter could
 * make (no model, no max_tokens, an unanswered tool_use).
 */
import { applyFrameFaults, truncateJsonInFrame, type VendorFrames } from './frame-writer.js';
import { startFakeProvider, type Exchange, type FakeProvider } from './fake-server.js';
import { argumentFragments, mintedIds, stopOf, textFragments, usageOf, type ScriptedError, type ScriptedTurn } from './script.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

const ERROR_MESSAGES: Record<string, string> = {
  authentication_error: 'invalid x-api-key',
  rate_limit_error: 'Number of request tokens has exceeded your per-minute rate limit',
  overloaded_error: 'Overloaded',
  api_error: 'Internal server error',
};

export function startFakeAnthropic(): Promise<FakeProvider> {
  let counter = 0;
  return startFakeProvider(async (exchange) => {
    const n = ++counter;
    const requestId = `req_fake${String(n).padStart(6, '0')}`;
    const { request } = exchange;
    if (request.method !== 'POST' || request.path.split('?')[0] !== '/v1/messages') {
      return sendError(exchange, requestId, { kind: 'error', status: 404, message: `${request.method} ${request.path} not found` });
    }
    const invalid = checkRequest(request.body);
    if (invalid) return sendError(exchange, requestId, { kind: 'error', status: 400, message: invalid });
    const scripted = exchange.next();
    if (!scripted) return sendError(exchange, requestId, { kind: 'error', status: 500, message: 'fake-anthropic: nothing scripted for this request' });
    if (scripted.kind === 'error') return sendError(exchange, requestId, scripted);

    const message = messageOf(scripted, request.body.model, n);
    if (request.body.stream === true) {
      const frames = applyFrameFaults(eventsOf(scripted, message), scripted.faults, SSE);
      return exchange.send(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId }, frames, scripted.faults);
    }
    let body: Buffer = Buffer.from(JSON.stringify(jsonMessage(message)), 'utf8');
    if (scripted.faults?.malformedFrame !== undefined) body = truncateJsonInFrame(body, 0);
    return exchange.send(200, { 'content-type': 'application/json', 'content-length': String(body.length), 'request-id': requestId }, [body], scripted.faults);
  });
}

const SSE: VendorFrames = {
  errorFrame: (type, message) => event('error', { type: 'error', error: { type, message } }),
  malform: (frame) => truncateJsonInFrame(frame, frame.indexOf('data: ') + 'data: '.length),
};

function event(name: string, data: unknown): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`, 'utf8');
}

function sendError(exchange: Exchange, requestId: string, error: ScriptedError): Promise<void> {
  const type = error.type ?? ERROR_TYPES[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
  const body = Buffer.from(JSON.stringify({ type: 'error', error: { type, message: error.message ?? ERROR_MESSAGES[type] ?? type }, request_id: requestId }), 'utf8');
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(body.length), 'request-id': requestId };
  if (error.retryAfter !== undefined) headers['retry-after'] = error.retryAfter;
  return exchange.send(error.status, headers, [body], error.faults);
}

interface FakeMessage {
  id: string;
  model: string;
  content: Array<Record<string, unknown>>;
  stop_reason: string;
  usage: { input: number; output: number };
}

function messageOf(turn: ScriptedTurn, requestedModel: string, n: number): FakeMessage {
  const content: Array<Record<string, unknown>> = [];
  const text = textFragments(turn).join('');
  if (text !== '') content.push({ type: 'text', text, citations: null });
  const ids = mintedIds(turn, 'toolu_fake');
  (turn.toolCalls ?? []).forEach((call, i) => content.push({ type: 'tool_use', id: call.id ?? ids[i], name: call.name, input: call.input }));
  return { id: `msg_fake${n}`, model: turn.model ?? requestedModel, content, stop_reason: turn.rawStop ?? stopOf(turn), usage: usageOf(turn) };
}

/** The JSON answer: exactly what the SDK's MessageStream accumulates from `eventsOf` (the oracle test holds them equal). */
export function jsonMessage(message: FakeMessage): Record<string, unknown> {
  return {
    id: message.id,
    type: 'message',
    role: 'assistant',
    model: message.model,
    content: message.content,
    stop_reason: message.stop_reason,
    stop_sequence: null,
    stop_details: null,
    usage: usageBody(message.usage.input, message.usage.output),
  };
}

function usageBody(input: number, output: number) {
  return { input_tokens: input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: output, service_tier: 'standard' };
}

function eventsOf(turn: ScriptedTurn, message: FakeMessage): Buffer[] {
  const frames: Buffer[] = [
    event('message_start', {
      type: 'message_start',
      message: { ...jsonMessage(message), content: [], stop_reason: null, usage: usageBody(message.usage.input, 1) },
    }),
  ];
  let index = 0;
  const fragments = textFragments(turn);
  if (fragments.length > 0) {
    frames.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '', citations: null } }));
    for (const text of fragments) frames.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }));
    frames.push(event('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  }
  const toolBlocks = message.content.filter((block) => block.type === 'tool_use');
  (turn.toolCalls ?? []).forEach((call, i) => {
    frames.push(event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolBlocks[i]!.id, name: call.name, input: {} } }));
    for (const partial_json of ['', ...argumentFragments(call)]) {
      frames.push(event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }));
    }
    frames.push(event('content_block_stop', { type: 'content_block_stop', index }));
    index++;
  });
  frames.push(
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null },
      usage: { input_tokens: message.usage.input, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: message.usage.output },
    }),
    event('message_stop', { type: 'message_stop' }),
  );
  // Pings and an unknown event are inserted last, at positions in the list above, from the back so positions hold.
  const inserts: Array<[number, Buffer]> = (turn.faults?.pingsAt ?? [2]).map((at) => [at, event('ping', { type: 'ping' })]);
  if (turn.faults?.unknownEventAt !== undefined) inserts.push([turn.faults.unknownEventAt, event('future_event', { type: 'future_event', detail: 'ignore me' })]);
  for (const [at, frame] of inserts.sort((a, b) => b[0] - a[0])) frames.splice(Math.min(at, frames.length), 0, frame);
  return frames;
}

/** The API's own refusals for requests an adapter could get wrong. */
function checkRequest(body: any): string | null {
  if (!body || typeof body !== 'object') return 'request body must be a JSON object';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  if (body.messages[0].role !== 'user') return 'messages: first message must use the "user" role';
  for (let i = 0; i < body.messages.length; i++) {
    const message = body.messages[i];
    if (message.role !== 'user' && message.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (i > 0 && body.messages[i - 1].role === message.role) return `messages.${i}: roles must alternate between "user" and "assistant"`;
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return `messages.${i}.content: must be a string or a non-empty list`;
    for (const block of blocks) if (block.type === 'text' && block.text === '') return `messages.${i}: text content blocks must be non-empty`;
    const firstOther = blocks.findIndex((b: any) => b.type !== 'tool_result');
    if (firstOther >= 0 && blocks.slice(firstOther).some((b: any) => b.type === 'tool_result')) return `messages.${i}: tool_result blocks must come before any other content`;
    const toolUses = blocks.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id as string);
    if (message.role === 'assistant' && toolUses.length > 0) {
      const next = body.messages[i + 1];
      const answered = new Set((Array.isArray(next?.content) ? next.content : []).filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id));
      const missing = toolUses.filter((id: string) => !answered.has(id));
      if (next && missing.length > 0) return `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}`;
    }
  }
  for (const tool of body.tools ?? []) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name ?? '')) return `tools: name must match ^[a-zA-Z0-9_-]{1,64}$`;
    if (tool.input_schema?.type !== 'object') return `tools.${tool.name}.input_schema.type: Input should be 'object'`;
  }
  return null;
}
