/**
 * A scripted Ollama server (../shared/research/wave3-agents.md §1.3):
 * `POST /api/chat` streams by default, as NDJSON (`application/x-ndjson`,
 * one object per line), and answers one JSON object with `stream: false`;
 * content arrives in fragments, tool calls whole and without ids in one
 * line, and the last line has `done: true`, `done_reason` and the counts and
 * durations (nanoseconds). Errors are `{"error": "..."}` with a status, or
 * an `{"error"}` line mid-stream. `GET /api/tags` lists the models and
 * `GET /api/version` answers the version, as the real server does.
 */
import { applyFrameFaults, truncateJsonInFrame, type VendorFrames } from './frame-writer.js';
import { startFakeProvider, type Exchange, type FakeProvider } from './fake-server.js';
import { fullText, stopOf, textFragments, usageOf, type ScriptedError, type ScriptedTurn } from './script.js';

export interface FakeOllamaOptions {
  /** Models listed by /api/tags; a chat naming another answers 404 as Ollama does. Default: any model is accepted and none listed. */
  readonly models?: readonly string[];
}

export const FAKE_OLLAMA_VERSION = '0.12.6';

export function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeProvider> {
  let counter = 0;
  return startFakeProvider(async (exchange) => {
    const n = ++counter;
    const { request } = exchange;
    const path = request.path.split('?')[0];
    if (request.method === 'GET' && path === '/api/version') return sendJson(exchange, 200, { version: FAKE_OLLAMA_VERSION });
    if (request.method === 'GET' && path === '/api/tags') return sendJson(exchange, 200, { models: (options.models ?? []).map(tag) });
    if (request.method !== 'POST' || path !== '/api/chat') return sendError(exchange, { kind: 'error', status: 404, message: '404 page not found' });
    const invalid = checkRequest(request.body);
    if (invalid) return sendError(exchange, { kind: 'error', status: 400, message: invalid });
    if (options.models && !options.models.includes(request.body.model)) {
      return sendError(exchange, { kind: 'error', status: 404, message: `model "${request.body.model}" not found, try pulling it first` });
    }
    const scripted = exchange.next();
    if (!scripted) return sendError(exchange, { kind: 'error', status: 500, message: 'fake-ollama: nothing scripted for this request' });
    if (scripted.kind === 'error') return sendError(exchange, scripted);

    const createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    if (request.body.stream !== false) {
      const frames = applyFrameFaults(linesOf(scripted, request.body.model, createdAt), scripted.faults, NDJSON);
      return exchange.send(200, { 'content-type': 'application/x-ndjson' }, frames, scripted.faults);
    }
    let body: Buffer = Buffer.from(JSON.stringify(finalOf(scripted, request.body.model, createdAt, true)), 'utf8');
    if (scripted.faults?.malformedFrame !== undefined) body = truncateJsonInFrame(body, 0);
    return exchange.send(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }, [body], scripted.faults);
  });
}

const NDJSON: VendorFrames = {
  errorFrame: (_type, message) => line({ error: message }),
  malform: (frame) => truncateJsonInFrame(frame, 0),
};

function line(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value)}\n`, 'utf8');
}

function sendJson(exchange: Exchange, status: number, value: unknown): Promise<void> {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  return exchange.send(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }, [body], undefined);
}

function sendError(exchange: Exchange, error: ScriptedError): Promise<void> {
  const body = Buffer.from(JSON.stringify({ error: error.message ?? `${error.type ?? 'error'} (status ${error.status})` }), 'utf8');
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) };
  if (error.retryAfter !== undefined) headers['retry-after'] = error.retryAfter;
  return exchange.send(error.status, headers, [body], error.faults);
}

function tag(name: string) {
  return {
    name,
    model: name,
    modified_at: '2026-01-01T00:00:00Z',
    size: 4_661_224_676,
    digest: '0'.repeat(64),
    details: { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '8.0B', quantization_level: 'Q4_K_M' },
  };
}

/** The `done: true` object: the last line of a stream, or, `whole` (with the content and tool calls), the JSON answer. */
function finalOf(turn: ScriptedTurn, requestedModel: string, createdAt: string, whole: boolean): Record<string, unknown> {
  const usage = usageOf(turn);
  const message: Record<string, unknown> = { role: 'assistant', content: whole ? fullText(turn) : '' };
  if (whole && turn.toolCalls?.length) message.tool_calls = toolCallsOf(turn);
  return {
    model: turn.model ?? requestedModel,
    created_at: createdAt,
    message,
    done: true,
    done_reason: turn.rawStop ?? (stopOf(turn) === 'max_tokens' || stopOf(turn) === 'model_context_window_exceeded' ? 'length' : 'stop'),
    total_duration: 1_234_567_890,
    load_duration: 12_345_678,
    prompt_eval_count: usage.input,
    prompt_eval_duration: 98_765_432,
    eval_count: usage.output,
    eval_duration: 876_543_210,
  };
}

function toolCallsOf(turn: ScriptedTurn) {
  return (turn.toolCalls ?? []).map((call) => ({ function: { name: call.name, arguments: call.input } }));
}

function linesOf(turn: ScriptedTurn, requestedModel: string, createdAt: string): Buffer[] {
  const model = turn.model ?? requestedModel;
  const frames = textFragments(turn).map((content) => line({ model, created_at: createdAt, message: { role: 'assistant', content }, done: false }));
  if (turn.toolCalls?.length) frames.push(line({ model, created_at: createdAt, message: { role: 'assistant', content: '', tool_calls: toolCallsOf(turn) }, done: false }));
  frames.push(line(finalOf(turn, requestedModel, createdAt, false)));
  return frames;
}

function checkRequest(body: any): string | null {
  if (!body || typeof body !== 'object') return 'invalid character looking for beginning of value';
  if (typeof body.model !== 'string' || body.model === '') return 'model is required';
  for (const message of body.messages ?? []) {
    if (!['system', 'user', 'assistant', 'tool'].includes(message.role)) return `invalid role: ${message.role}`;
    if (typeof message.content !== 'string') return 'json: cannot unmarshal array into Go struct field Message.messages.content of type string';
  }
  return null;
}
