/**
 * Adds up an OpenAI chunk stream into a ModelTurn: content and refusal
 * deltas, tool calls by `index` (id and name on the first fragment,
 * argument text appended), `finish_reason`, and the usage of the last
 * chunk. Only choice 0 is read (Loom never asks for `n > 1`). Lenient where
 * OpenAI-compatible servers differ from OpenAI (no `index` means 0, a
 * missing id is minted), strict where the turn would be wrong: no
 * `finish_reason` at all is `malformed_response`.
 */
import type OpenAI from 'openai';
import { MalformedStreamError } from './malformed-stream.js';
import type { ModelDelta, ModelTurn, StopReason, TokenUsage } from './model-turn.js';
import { settleStopReason } from './model-turn.js';
import { mintToolCallId, toolCallFromJson } from './tool-input.js';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

const STOP: Record<string, StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

interface Call {
  id: string;
  name: string;
  args: string;
  announced: boolean;
}

export class OpenAITurn {
  private model = '';
  private text = '';
  private refusal = '';
  private readonly calls: Call[] = [];
  private finishReason: string | null = null;
  private usage: TokenUsage | null = null;
  private started = false;

  add(chunk: Chunk, onDelta?: (delta: ModelDelta) => void): void {
    if (chunk.model) this.model = chunk.model;
    if (!this.started) {
      this.started = true;
      onDelta?.({ type: 'start', model: this.model, inputTokens: null, cacheReadTokens: null, cacheWriteTokens: null });
    }
    if (chunk.usage) {
      this.usage = {
        inputTokens: chunk.usage.prompt_tokens,
        outputTokens: chunk.usage.completion_tokens,
        cacheReadTokens: chunk.usage.prompt_tokens_details?.cached_tokens ?? 0,
        cacheWriteTokens: 0,
      };
    }
    const choice = chunk.choices.find((c) => (c.index ?? 0) === 0);
    if (!choice) return;
    const delta = choice.delta ?? {};
    if (delta.content) {
      this.text += delta.content;
      onDelta?.({ type: 'text', text: delta.content });
    }
    if (delta.refusal) this.refusal += delta.refusal;
    for (const fragment of delta.tool_calls ?? []) {
      const index = fragment.index ?? 0;
      const call = (this.calls[index] ??= { id: '', name: '', args: '', announced: false });
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.name = fragment.function.name;
      if (fragment.function?.arguments) call.args += fragment.function.arguments;
      if (!call.announced && call.name) {
        call.id ||= mintToolCallId();
        call.announced = true;
        onDelta?.({ type: 'tool_call', index, id: call.id, name: call.name });
        // Arguments that came before the name (or with it) follow the announcement.
        if (call.args !== '') onDelta?.({ type: 'tool_input', index, json: call.args });
      } else if (call.announced && fragment.function?.arguments) {
        onDelta?.({ type: 'tool_input', index, json: fragment.function.arguments });
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  finish(requestId: string | null): ModelTurn {
    if (this.finishReason === null) throw new MalformedStreamError('the stream ended without a finish_reason');
    const calls = this.calls.filter((c): c is Call => c !== undefined);
    const unnamed = calls.find((c) => c.name === '');
    if (unnamed) throw new MalformedStreamError('a tool call without a function name');
    const toolCalls = calls.map((c) => toolCallFromJson(c.id || mintToolCallId(), c.name, c.args));
    const refused = this.refusal !== '';
    return {
      text: refused ? this.refusal : this.text,
      toolCalls,
      stopReason: refused ? 'refusal' : settleStopReason(STOP[this.finishReason] ?? 'other', toolCalls.length),
      rawStopReason: this.finishReason,
      usage: this.usage,
      model: this.model,
      requestId,
    };
  }
}
