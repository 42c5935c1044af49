/**
 * What a model answered, in no vendor's words: one assistant turn with its
 * text, its tool calls, why it stopped and what it cost in tokens, as the
 * provider itself reported them (also when streaming).
 */
import type { ToolCall } from './model-request.js';

/**
 * Why the turn ended: `end_turn` (done, or a stop sequence), `tool_use`
 * (exactly when there are tool calls to run), `max_tokens` (cut by the
 * output or context limit), `refusal` (the model or the vendor's filter
 * declined), `other` (anything else; `rawStopReason` says what).
 */
export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'other';

export interface TokenUsage {
  /** Every input token of the call, cached ones included (Anthropic's input + cache read + cache write; OpenAI's prompt_tokens). */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of `inputTokens`, read from the vendor's prompt cache. */
  readonly cacheReadTokens: number;
  /** Of `inputTokens`, written to the vendor's prompt cache (Anthropic only). */
  readonly cacheWriteTokens: number;
}

export interface ModelTurn {
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly stopReason: StopReason;
  /** The vendor's own value (Anthropic stop_reason, OpenAI finish_reason, Ollama done_reason). */
  readonly rawStopReason: string;
  /** Null when the provider reported none (an OpenAI-compatible server that ignores `stream_options`): the loop must then estimate. */
  readonly usage: TokenUsage | null;
  /** The model the provider says answered. */
  readonly model: string;
  /** The vendor's request id header (`request-id`, `x-request-id`); null when it sends none (Ollama). */
  readonly requestId: string | null;
  /** The stop sequence that ended the turn, where the vendor says which (Anthropic); absent otherwise. */
  readonly stopSequence?: string | null;
}

/**
 * Streamed progress, for a live view (and the chat proxy, which relays it
 * token by token); the turn that `complete` resolves with is the record of
 * truth. `start` comes first, once, when the vendor's first frame arrives;
 * a `tool_call` announces call `index` (counted among calls), its
 * `tool_input` fragments follow it and concatenate to the call's input JSON
 * as the model wrote it (Ollama sends a call whole: one fragment).
 */
export type ModelDelta =
  | { readonly type: 'start'; readonly model: string; readonly inputTokens: number | null; readonly cacheReadTokens: number | null; readonly cacheWriteTokens: number | null }
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_call'; readonly index: number; readonly id: string; readonly name: string }
  | { readonly type: 'tool_input'; readonly index: number; readonly json: string };

/**
 * The vendor's mapped reason made consistent with the calls: a turn with
 * tool calls that says it simply ended is a tool_use turn (some
 * OpenAI-compatible servers answer `stop` with tool calls), and one that
 * says tool_use without any call is `other`. A cut-off turn stays
 * `max_tokens` even with (possibly truncated) calls.
 */
export function settleStopReason(mapped: StopReason, toolCallCount: number): StopReason {
  if (toolCallCount > 0 && mapped === 'end_turn') return 'tool_use';
  if (toolCallCount === 0 && mapped === 'tool_use') return 'other';
  return mapped;
}
