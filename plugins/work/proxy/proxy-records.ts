/**
 * The bodies of the records an exchange leaves on its thread: the request
 * as the client sent it, and the answer (content, stop reason, usage,
 * cost_usd at the catalog's price) or the failure. A request or answer
 * larger than RECORD_TEXT_LIMIT is not stored whole (records are folded,
 * replicated and read back by every watcher of the thread; a coding
 * client's context is easily megabytes): its SHA-256 and byte count are,
 * with the fields that say what was asked (model, max_tokens, tools by
 * name, the last message cut to a preview).
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../../core/records/json.js';
import type { PricedModel } from '../../members/index.js';
import type { WireMessage } from './anthropic-wire.js';
import type { ProxyFailure } from './proxy-errors.js';
import { KIND_PROXY_ERROR, KIND_PROXY_REQUEST, KIND_PROXY_RESPONSE } from './proxy-usage.js';

/** Serialized JSON bytes of a request or answer stored whole; beyond it, a digest and a preview. */
export const RECORD_TEXT_LIMIT = 256 * 1024;
/** Characters of a preview (the system prompt, the last message, an answer's text) when the whole is not stored. */
export const PREVIEW_CHARS = 4 * 1024;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const cut = (text: string) => (text.length > PREVIEW_CHARS ? text.slice(0, PREVIEW_CHARS) : text);

export function requestBody(fields: { body: Record<string, unknown>; model: PricedModel; stream: boolean; maxTokensSent: number; ignored: readonly string[]; tier: string }): JsonObject {
  const text = JSON.stringify(fields.body);
  const bytes = Buffer.byteLength(text);
  const whole = bytes <= RECORD_TEXT_LIMIT;
  const messages = Array.isArray(fields.body['messages']) ? (fields.body['messages'] as unknown[]) : [];
  const tools = Array.isArray(fields.body['tools']) ? (fields.body['tools'] as Array<{ name?: unknown }>) : [];
  return {
    kind: KIND_PROXY_REQUEST,
    schema_version: '1.0.0',
    model: fields.model.id,
    provider: fields.model.provider,
    stream: fields.stream,
    max_tokens: fields.body['max_tokens'] as number,
    // What the provider was asked for: the client's max_tokens clamped by the tier and the daily cap.
    max_tokens_sent: fields.maxTokensSent,
    tier: fields.tier,
    request_sha256: sha256(text),
    request_bytes: bytes,
    truncated: !whole,
    ...(fields.ignored.length > 0 ? { ignored_fields: [...fields.ignored] } : {}),
    ...(whole
      ? { request: fields.body as JsonObject }
      : {
          message_count: messages.length,
          tools: tools.map((tool) => (typeof tool.name === 'string' ? tool.name : '')),
          system_preview: cut(typeof fields.body['system'] === 'string' ? fields.body['system'] : JSON.stringify(fields.body['system'] ?? '')),
          last_message_preview: cut(JSON.stringify(messages.at(-1) ?? null)),
        }),
  };
}

export function responseBody(fields: { message: WireMessage; model: PricedModel; costUsd: number; usageEstimated: boolean; upstreamRequestId: string | null; durationMs: number }): JsonObject {
  const { message } = fields;
  const text = JSON.stringify(message.content);
  const bytes = Buffer.byteLength(text);
  const whole = bytes <= RECORD_TEXT_LIMIT;
  return {
    kind: KIND_PROXY_RESPONSE,
    schema_version: '1.0.0',
    message_id: message.id,
    model: message.model,
    provider: fields.model.provider,
    stop_reason: message.stop_reason,
    stop_sequence: message.stop_sequence,
    usage: { ...message.usage },
    ...(fields.usageEstimated ? { usage_estimated: true } : {}),
    cost_usd: fields.costUsd,
    price: { input_usd_per_mtok: fields.model.input_usd_per_mtok, output_usd_per_mtok: fields.model.output_usd_per_mtok },
    request_id: fields.upstreamRequestId,
    duration_ms: fields.durationMs,
    content_sha256: sha256(text),
    content_bytes: bytes,
    truncated: !whole,
    ...(whole
      ? { content: message.content as unknown as JsonObject[] }
      : {
          text_preview: cut(message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')),
          tool_uses: message.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, name: block.name }] : [])),
        }),
  };
}

export function errorRecordBody(fields: { failure: ProxyFailure; provider: string; upstream: JsonObject | null; midStream: boolean; durationMs: number }): JsonObject {
  return {
    kind: KIND_PROXY_ERROR,
    schema_version: '1.0.0',
    provider: fields.provider,
    status: fields.failure.status,
    code: fields.failure.code,
    error_type: fields.failure.type,
    message: fields.failure.message,
    // After the first byte the failure reached the client as an SSE `error` event, not as a status.
    mid_stream: fields.midStream,
    upstream: fields.upstream,
    cost_usd: 0,
    duration_ms: fields.durationMs,
  };
}
