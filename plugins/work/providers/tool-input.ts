/**
 * A tool call's input as the model streamed it (JSON text, in fragments)
 * turned into the object the loop validates. The vendors promise a JSON
 * object but a turn cut off by max_tokens, or a small local model, can send
 * less; that is recorded on the call (`inputError`, with the raw text)
 * rather than thrown, so the model can be told and the run goes on.
 */
import { randomBytes } from 'node:crypto';
import type { ToolCall } from './model-request.js';

export function toolCallFromJson(id: string, name: string, raw: string): ToolCall {
  if (raw.trim() === '') return { id, name, input: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { id, name, input: {}, inputError: 'the tool input is not valid JSON', rawInput: raw };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { id, name, input: {}, inputError: 'the tool input is not a JSON object', rawInput: raw };
  return { id, name, input: value as Record<string, unknown> };
}

/** The input as a vendor that takes a string wants it back: what the model sent, verbatim when it was not an object. */
export function toolInputJson(call: ToolCall): string {
  return call.rawInput ?? JSON.stringify(call.input);
}

/** An id for a call the vendor sent without one (Ollama always, some OpenAI-compatible servers): `call_` and 24 hex digits, valid for every vendor. */
export function mintToolCallId(): string {
  return `call_${randomBytes(12).toString('hex')}`;
}
