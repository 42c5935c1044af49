/**
 * Adds up Ollama's NDJSON lines into a ModelTurn: content fragments, tool
 * calls that arrive whole and without ids (ids are minted here: the loop
 * records them with the turn, so a replay reuses the recorded ones), and
 * the last line's `done_reason` and counts (`prompt_eval_count`,
 * `eval_count`). A stream without its `done: true` line is
 * `malformed_response`.
 */
import type { ChatResponse } from 'ollama';
import { MalformedStreamError } from './malformed-stream.js';
import type { ToolCall } from './model-request.js';
import type { ModelDelta, ModelTurn, StopReason, TokenUsage } from './model-turn.js';
import { settleStopReason } from './model-turn.js';
import { mintToolCallId } from './tool-input.js';

const STOP: Record<string, StopReason> = { stop: 'end_turn', length: 'max_tokens' };

export class OllamaTurn {
  private model = '';
  private text = '';
  private readonly toolCalls: ToolCall[] = [];
  private done: ChatResponse | null = null;

  private started = false;

  add(part: ChatResponse, onDelta?: (delta: ModelDelta) => void): void {
    if (this.done) throw new MalformedStreamError('a line after done');
    if (part.model) this.model = part.model;
    if (!this.started) {
      this.started = true;
      onDelta?.({ type: 'start', model: this.model, inputTokens: null, cacheReadTokens: null, cacheWriteTokens: null });
    }
    const content = part.message?.content ?? '';
    if (content !== '') {
      this.text += content;
      onDelta?.({ type: 'text', text: content });
    }
    for (const call of part.message?.tool_calls ?? []) {
      const args = call.function.arguments as unknown;
      const toolCall: ToolCall =
        args !== null && typeof args === 'object' && !Array.isArray(args)
          ? { id: mintToolCallId(), name: call.function.name, input: args as Record<string, unknown> }
          : { id: mintToolCallId(), name: call.function.name, input: {}, inputError: 'the tool input is not a JSON object', rawInput: JSON.stringify(args) };
      onDelta?.({ type: 'tool_call', index: this.toolCalls.length, id: toolCall.id, name: toolCall.name });
      onDelta?.({ type: 'tool_input', index: this.toolCalls.length, json: toolCall.rawInput ?? JSON.stringify(toolCall.input) });
      this.toolCalls.push(toolCall);
    }
    if (part.done) this.done = part;
  }

  finish(): ModelTurn {
    const done = this.done;
    if (!done) throw new MalformedStreamError('the stream ended without its done line');
    const raw = done.done_reason ?? 'stop';
    const counted = done.prompt_eval_count !== undefined || done.eval_count !== undefined;
    const usage: TokenUsage | null = counted ? { inputTokens: done.prompt_eval_count ?? 0, outputTokens: done.eval_count ?? 0, cacheReadTokens: 0, cacheWriteTokens: 0 } : null;
    return {
      text: this.text,
      toolCalls: this.toolCalls,
      stopReason: settleStopReason(STOP[raw] ?? 'other', this.toolCalls.length),
      rawStopReason: raw,
      usage,
      model: this.model,
      requestId: null,
    };
  }
}
