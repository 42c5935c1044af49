/**
 * POST /v1/proxy/messages (spec §4.10) and its alias /v1/proxy/v1/messages:
 * the Anthropic SDKs append `/v1/messages` to their base URL, so a client
 * configured with `baseURL: <loom>/v1/proxy` (ANTHROPIC_BASE_URL) lands on
 * the alias. Two operations, one handler.
 */
import { token } from '../../../core/di/token.js';
import type { ErrorCode } from '../../../core/errors/codes.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { Type } from 'typebox';
import type { ChatProxy } from './chat-proxy.js';
import { ProxyMessagesBody } from './proxy-request.js';

export const ChatProxyToken = token<ChatProxy>('work.ChatProxy');

/** Anthropic accepts requests up to 32 MB; a coding client's context is often several. */
export const PROXY_MAX_BODY_BYTES = 32 * 1024 * 1024;

const ERRORS: readonly ErrorCode[] = [
  'INVALID_SHAPE',
  'NOT_FOUND',
  'FORBIDDEN',
  'NAMESPACE_REJECTED',
  'WORK_NO_PROVIDER',
  'WORK_DAILY_CAP_EXCEEDED',
  'WORK_DAILY_COUNT_EXCEEDED',
  'PROVIDER_INVALID_REQUEST',
  'PROVIDER_RATE_LIMITED',
  'PROVIDER_OVERLOADED',
  'PROVIDER_FAILED',
  'PAYLOAD_TOO_LARGE',
];

const MessageSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('message'),
    role: Type.Literal('assistant'),
    model: Type.String(),
    content: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })),
    stop_reason: Type.Union([Type.String(), Type.Null()]),
    stop_sequence: Type.Union([Type.String(), Type.Null()]),
    usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() }, { additionalProperties: true }),
  },
  { additionalProperties: true, description: 'An Anthropic Messages API Message.' },
);

const DESCRIPTION =
  'An Anthropic Messages API request in, the answer out in the Anthropic wire format: a Message, or with `stream: true` server-sent events ' +
  '(message_start, content_block_start, ping, content_block_delta, content_block_stop, message_delta, message_stop; `event:` lines, relayed as the provider streams). ' +
  '`model` names a model of the priced catalog; its provider (Anthropic, OpenAI-compatible or Ollama) answers, translated. Authenticate with the Loom bearer ' +
  '(`Authorization: Bearer`; the Anthropic SDK option `authToken`, ANTHROPIC_AUTH_TOKEN). The caller\'s tier clamps max_tokens and its daily caps apply (429). ' +
  'Each exchange is recorded on a thread (core.work.proxy_request.v1, then core.work.proxy_response.v1 or core.work.proxy_error.v1): a new one, or the one named ' +
  'by the `x-loom-thread` header; the answer names it in `x-loom-thread`, and `request-id` is the request record. Errors carry both Anthropic\'s body ' +
  '`{type: "error", error: {type, message}}` and Loom\'s envelope (`object`, `code`, `message`).';

function proxyRoute(operationId: string, path: string, summary: string) {
  return defineRoute({
    operationId,
    method: 'POST',
    path,
    summary,
    description: DESCRIPTION,
    tags: ['work'],
    auth: { scope: 'records:write' },
    request: {
      body: ProxyMessagesBody,
      headers: Type.Object({ 'x-loom-thread': Type.Optional(Type.String({ description: 'Continue this thread (th_ and 64 hex digits) instead of opening a new one.' })) }, { additionalProperties: true }),
    },
    bodyValidation: 'handler',
    maxBodyBytes: PROXY_MAX_BODY_BYTES,
    responses: { 200: { description: 'The Message (JSON), or its event stream (text/event-stream) with `stream: true`.', schema: MessageSchema } },
    errors: ERRORS,
    inject: { proxy: ChatProxyToken },
    handler: ({ body, headers, caller, signal }, { proxy }) => proxy.handle({ body, headers, caller, signal }),
  });
}

export const proxyMessages = proxyRoute('proxyMessages', '/v1/proxy/messages', 'Chat proxy: an Anthropic Messages request through Loom');
export const proxyMessagesAlias = proxyRoute('proxyMessagesAlias', '/v1/proxy/v1/messages', 'Chat proxy at the path the Anthropic SDKs build from baseURL <loom>/v1/proxy');

export const PROXY_ROUTES = [proxyMessages, proxyMessagesAlias] as const;
