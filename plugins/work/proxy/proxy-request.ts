/**
 * An Anthropic Messages request as the chat proxy takes it: checked field
 * by field with the API's own rules (messages: error naming the path, as
 * the API's `invalid_request_error` does) and translated into the work
 * loop's vendor-neutral ModelRequest, so the same request reaches an
 * Anthropic, OpenAI-compatible or Ollama model. Unknown top-level fields
 * are tolerated and ignored (clients add fields faster than a proxy can;
 * the API itself grows them), and listed in the request record. What the
 * neutral request cannot carry faithfully is refused rather than dropped:
 * image and document blocks, server tools, thinking.
 */
import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { ChatMessage, ModelRequest, RequestOptions, ToolCall, ToolChoice, ToolResult, ToolSpec } from '../providers/index.js';

/** The fields the proxy reads; every other top-level field is ignored (and named in the record). */
export const KNOWN_FIELDS = new Set(['model', 'max_tokens', 'messages', 'system', 'tools', 'tool_choice', 'stop_sequences', 'temperature', 'metadata', 'stream']);

/** Fields the proxy refuses because honouring them is impossible through the neutral request, and ignoring them would change the answer silently. */
const REFUSED_FIELDS: Record<string, string> = {
  thinking: 'extended thinking is not relayed by this proxy',
};

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface ProxyRequest {
  readonly model: string;
  readonly maxTokens: number;
  readonly stream: boolean;
  readonly system: string | null;
  readonly messages: readonly ChatMessage[];
  readonly tools: readonly ToolSpec[];
  readonly options: RequestOptions;
  readonly metadata: { readonly user_id?: string } | null;
  /** Top-level fields sent but not read. */
  readonly ignored: readonly string[];
}

/** The body schema, for the OpenAPI document; the handler checks the body itself (messages in the API's terms). */
export const ProxyMessagesBody = Type.Object(
  {
    model: Type.String({ minLength: 1, description: 'A model id of the priced catalog (GET /v1/models); its provider answers.' }),
    max_tokens: Type.Integer({ minimum: 1, description: 'Output ceiling; clamped to what the caller\'s tier and daily cap leave.' }),
    messages: Type.Array(Type.Object({ role: Type.Union([Type.Literal('user'), Type.Literal('assistant')]), content: Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true }))]) }, { additionalProperties: true }), { minItems: 1 }),
    system: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({ type: Type.Literal('text'), text: Type.String() }, { additionalProperties: true }))])),
    tools: Type.Optional(Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()), input_schema: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }))),
    tool_choice: Type.Optional(Type.Object({ type: Type.String(), name: Type.Optional(Type.String()), disable_parallel_tool_use: Type.Optional(Type.Boolean()) }, { additionalProperties: true })),
    stop_sequences: Type.Optional(Type.Array(Type.String())),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    metadata: Type.Optional(Type.Object({ user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])) }, { additionalProperties: true })),
    stream: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true, description: 'An Anthropic Messages API request (POST /v1/messages). Other top-level fields are accepted and ignored; thinking is refused.' },
);

const fail = (path: string, message: string): never => {
  throw new LoomError('INVALID_SHAPE', `${path}: ${message}`);
};

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

export function parseProxyRequest(body: unknown): ProxyRequest {
  if (!isObject(body)) fail('body', 'must be a JSON object (an Anthropic Messages request)');
  const b = body as Record<string, unknown>;
  for (const [field, why] of Object.entries(REFUSED_FIELDS)) if (b[field] !== undefined && b[field] !== null && !(isObject(b[field]) && b[field]['type'] === 'disabled')) fail(field, why);
  if (typeof b['model'] !== 'string' || b['model'] === '') fail('model', 'Field required (a model id of this instance\'s catalog)');
  if (!Number.isInteger(b['max_tokens']) || (b['max_tokens'] as number) < 1) fail('max_tokens', 'Field required: an integer of at least 1');
  if (b['stream'] !== undefined && typeof b['stream'] !== 'boolean') fail('stream', 'must be a boolean');
  const options: { temperature?: number; stopSequences?: string[]; toolChoice?: ToolChoice } = {};
  if (b['temperature'] !== undefined) {
    if (typeof b['temperature'] !== 'number' || b['temperature'] < 0 || b['temperature'] > 1) fail('temperature', 'must be a number from 0 to 1');
    options.temperature = b['temperature'] as number;
  }
  if (b['stop_sequences'] !== undefined) {
    const stops = b['stop_sequences'];
    if (!Array.isArray(stops) || stops.some((s) => typeof s !== 'string' || s === '')) fail('stop_sequences', 'must be a list of non-empty strings');
    options.stopSequences = stops as string[];
  }
  const tools = parseTools(b['tools']);
  if (b['tool_choice'] !== undefined) options.toolChoice = parseToolChoice(b['tool_choice'], tools);
  let metadata: { user_id?: string } | null = null;
  if (b['metadata'] !== undefined) {
    if (!isObject(b['metadata'])) fail('metadata', 'must be an object');
    const user = (b['metadata'] as Record<string, unknown>)['user_id'];
    if (user !== undefined && user !== null && (typeof user !== 'string' || user.length > 256)) fail('metadata.user_id', 'must be a string of at most 256 characters');
    metadata = typeof user === 'string' ? { user_id: user } : {};
  }
  return {
    model: b['model'] as string,
    maxTokens: b['max_tokens'] as number,
    stream: b['stream'] === true,
    system: parseSystem(b['system']),
    messages: parseMessages(b['messages']),
    tools,
    options,
    metadata,
    ignored: Object.keys(b).filter((key) => !KNOWN_FIELDS.has(key)),
  };
}

export function modelRequest(request: ProxyRequest, model: string, maxTokens: number): ModelRequest {
  return { model, system: request.system, messages: request.messages, tools: request.tools, maxTokens, options: request.options };
}

function parseSystem(system: unknown): string | null {
  if (system === undefined || system === null) return null;
  if (typeof system === 'string') return system === '' ? null : system;
  if (!Array.isArray(system)) return fail('system', 'must be a string or a list of text blocks');
  return (
    system
      .map((block, i) => {
        if (!isObject(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return fail(`system.${i}`, 'must be a text block {type: "text", text}');
        return block['text'] as string;
      })
      .join('\n\n') || null
  );
}

function parseTools(tools: unknown): ToolSpec[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) return fail('tools', 'must be a list');
  const names = new Set<string>();
  return tools.map((tool, i) => {
    if (!isObject(tool)) return fail(`tools.${i}`, 'must be an object');
    if (tool['type'] !== undefined && tool['type'] !== 'custom') return fail(`tools.${i}.type`, `server tools (${String(tool['type'])}) are not relayed by this proxy; define a custom tool`);
    const name = tool['name'];
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) return fail(`tools.${i}.name`, 'must match ^[a-zA-Z0-9_-]{1,64}$');
    if (names.has(name)) return fail(`tools.${i}.name`, `tool names must be unique (${name} twice)`);
    names.add(name);
    const schema = tool['input_schema'];
    if (!isObject(schema) || schema['type'] !== 'object') return fail(`tools.${i}.input_schema.type`, "Input should be 'object'");
    if (tool['description'] !== undefined && typeof tool['description'] !== 'string') return fail(`tools.${i}.description`, 'must be a string');
    return { name, description: (tool['description'] as string | undefined) ?? '', inputSchema: schema };
  });
}

function parseToolChoice(choice: unknown, tools: readonly ToolSpec[]): ToolChoice {
  if (!isObject(choice)) return fail('tool_choice', 'must be an object');
  const parallel = choice['disable_parallel_tool_use'];
  if (parallel !== undefined && typeof parallel !== 'boolean') fail('tool_choice.disable_parallel_tool_use', 'must be a boolean');
  const extra = parallel === undefined ? {} : { disableParallelToolUse: parallel as boolean };
  switch (choice['type']) {
    case 'auto':
    case 'any':
    case 'none':
      return { type: choice['type'], ...extra };
    case 'tool': {
      const name = choice['name'];
      if (typeof name !== 'string' || !tools.some((tool) => tool.name === name)) return fail('tool_choice.name', 'must name one of the request\'s tools');
      return { type: 'tool', name, ...extra };
    }
    default:
      return fail('tool_choice.type', "must be 'auto', 'any', 'tool' or 'none'");
  }
}

function parseMessages(messages: unknown): ChatMessage[] {
  if (!Array.isArray(messages) || messages.length === 0) return fail('messages', 'at least one message is required');
  const out: ChatMessage[] = [];
  let pendingCalls: string[] = [];
  messages.forEach((message, i) => {
    const at = `messages.${i}`;
    if (!isObject(message)) return fail(at, 'must be an object');
    const role = message['role'];
    if (role !== 'user' && role !== 'assistant') return fail(`${at}.role`, "Input should be 'user' or 'assistant'");
    if (i === 0 && role !== 'user') return fail(`${at}.role`, 'the first message must use the "user" role');
    const blocks = contentBlocks(message['content'], at);
    if (role === 'assistant') {
      if (pendingCalls.length > 0) return fail(at, `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${pendingCalls.join(', ')}`);
      let text = '';
      const calls: ToolCall[] = [];
      blocks.forEach((block, j) => {
        if (block['type'] === 'text') text += block['text'];
        else if (block['type'] === 'tool_use') {
          if (typeof block['id'] !== 'string' || block['id'] === '' || typeof block['name'] !== 'string' || !isObject(block['input'])) return fail(`${at}.content.${j}`, 'a tool_use block needs id, name and an object input');
          calls.push({ id: block['id'] as string, name: block['name'] as string, input: block['input'] as Record<string, unknown> });
        } else if (block['type'] === 'thinking' || block['type'] === 'redacted_thinking') {
          // Thinking is never produced here; a client replaying another model's thinking loses nothing by its omission.
        } else return fail(`${at}.content.${j}.type`, `${String(block['type'])} blocks are not relayed by this proxy in an assistant message`);
      });
      pendingCalls = calls.map((call) => call.id);
      out.push({ role: 'assistant', text, toolCalls: calls });
      return;
    }
    const results: ToolResult[] = [];
    const texts: string[] = [];
    blocks.forEach((block, j) => {
      if (block['type'] === 'text') {
        if (block['text'] === '') return fail(`${at}.content.${j}.text`, 'text content blocks must be non-empty');
        texts.push(block['text'] as string);
      } else if (block['type'] === 'tool_result') {
        if (texts.length > 0) return fail(`${at}.content.${j}`, 'tool_result blocks must come before any other content');
        const id = block['tool_use_id'];
        if (typeof id !== 'string' || !pendingCalls.includes(id)) return fail(`${at}.content.${j}.tool_use_id`, 'must answer a tool_use of the previous assistant message');
        if (block['is_error'] !== undefined && typeof block['is_error'] !== 'boolean') return fail(`${at}.content.${j}.is_error`, 'must be a boolean');
        results.push({ callId: id, content: toolResultText(block['content'], `${at}.content.${j}.content`), isError: block['is_error'] === true });
      } else return fail(`${at}.content.${j}.type`, `${String(block['type'])} blocks are not relayed by this proxy (text and tool_result only)`);
    });
    const unanswered = pendingCalls.filter((id) => !results.some((result) => result.callId === id));
    if (unanswered.length > 0) return fail(at, `\`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}`);
    pendingCalls = [];
    if (results.length > 0) out.push({ role: 'tool_results', results });
    if (texts.length > 0) out.push({ role: 'user', text: texts.join('\n\n') });
  });
  return out;
}

function contentBlocks(content: unknown, at: string): Array<Record<string, unknown>> {
  if (typeof content === 'string') {
    if (content === '') return fail(`${at}.content`, 'must be non-empty');
    return [{ type: 'text', text: content }];
  }
  if (!Array.isArray(content) || content.length === 0) return fail(`${at}.content`, 'must be a string or a non-empty list of blocks');
  return content.map((block, j) => {
    if (!isObject(block) || typeof block['type'] !== 'string') return fail(`${at}.content.${j}`, 'must be a content block with a type');
    if (block['type'] === 'text' && typeof block['text'] !== 'string') return fail(`${at}.content.${j}.text`, 'must be a string');
    return block;
  });
}

function toolResultText(content: unknown, at: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return fail(at, 'must be a string or a list of text blocks');
  return content
    .map((block, k) => {
      if (!isObject(block) || block['type'] !== 'text' || typeof block['text'] !== 'string') return fail(`${at}.${k}`, 'only text blocks are relayed in a tool_result');
      return block['text'] as string;
    })
    .join('\n\n');
}
