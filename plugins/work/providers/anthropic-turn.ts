/**
 * Adds up an Anthropic event stream into a ModelTurn: text from
 * `text_delta`, tool input from the `input_json_delta` fragments (parsed
 * once, at the end), stop_reason and usage from `message_delta` (its
 * counts are cumulative: they replace, never add to, those of
 * `message_start`). It holds the stream to the documented order: one
 * `message_start` first, a `message_stop` last; anything else is
 * `malformed_response`. Thinking and citation deltas are not part of a turn
 * Loom records and are skipped.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelDelta, ModelTurn, StopReason } from './model-turn.js';
import { settleStopReason } from './model-turn.js';
import { MalformedStreamError } from './malformed-stream.js';
import { toolCallFromJson } from './tool-input.js';

type Event = Anthropic.Messages.RawMessageStreamEvent;

const STOP: Record<string, StopReason> = {
  end_turn: 'end_turn',
  stop_sequence: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
  refusal: 'refusal',
};

interface Block {
  type: string;
  text: string;
  id: string;
  name: string;
  json: string;
}

export class AnthropicTurn {
  private started = false;
  private stopped = false;
  private model = '';
  private readonly blocks: Block[] = [];
  private stopReason: string | null = null;
  private stopSequence: string | null = null;
  private usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

  add(event: Event, onDelta?: (delta: ModelDelta) => void): void {
    if (this.stopped) throw new MalformedStreamError(`event ${event.type} after message_stop`);
    if (!this.started && event.type !== 'message_start') throw new MalformedStreamError(`event ${event.type} before message_start`);
    switch (event.type) {
      case 'message_start': {
        if (this.started) throw new MalformedStreamError('a second message_start');
        this.started = true;
        this.model = event.message.model;
        const u = event.message.usage;
        this.usage = { input: u.input_tokens, output: u.output_tokens, cacheRead: u.cache_read_input_tokens ?? 0, cacheWrite: u.cache_creation_input_tokens ?? 0 };
        onDelta?.({ type: 'start', model: this.model, inputTokens: u.input_tokens, cacheReadTokens: u.cache_read_input_tokens ?? null, cacheWriteTokens: u.cache_creation_input_tokens ?? null });
        return;
      }
      case 'content_block_start': {
        const block = event.content_block;
        this.blocks[event.index] = { type: block.type, text: '', id: block.type === 'tool_use' ? block.id : '', name: block.type === 'tool_use' ? block.name : '', json: '' };
        if (block.type === 'tool_use') onDelta?.({ type: 'tool_call', index: this.toolIndexOf(event.index), id: block.id, name: block.name });
        return;
      }
      case 'content_block_delta': {
        const block = this.blocks[event.index];
        if (!block) throw new MalformedStreamError(`a delta for block ${event.index}, which never started`);
        if (event.delta.type === 'text_delta') {
          block.text += event.delta.text;
          onDelta?.({ type: 'text', text: event.delta.text });
        } else if (event.delta.type === 'input_json_delta') {
          block.json += event.delta.partial_json;
          if (block.type === 'tool_use') onDelta?.({ type: 'tool_input', index: this.toolIndexOf(event.index), json: event.delta.partial_json });
        }
        return;
      }
      case 'message_delta': {
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.stopSequence = event.delta.stop_sequence ?? this.stopSequence;
        const u = event.usage;
        this.usage = {
          input: u.input_tokens ?? this.usage.input,
          output: u.output_tokens,
          cacheRead: u.cache_read_input_tokens ?? this.usage.cacheRead,
          cacheWrite: u.cache_creation_input_tokens ?? this.usage.cacheWrite,
        };
        return;
      }
      case 'message_stop':
        this.stopped = true;
        return;
      default:
        return;
    }
  }

  finish(requestId: string | null): ModelTurn {
    if (!this.stopped) throw new MalformedStreamError('the stream ended without message_stop');
    const toolCalls = this.blocks.filter((b) => b?.type === 'tool_use').map((b) => toolCallFromJson(b.id, b.name, b.json));
    const raw = this.stopReason ?? 'unknown';
    return {
      text: this.blocks.filter((b) => b?.type === 'text').map((b) => b.text).join(''),
      toolCalls,
      stopReason: settleStopReason(STOP[raw] ?? 'other', toolCalls.length),
      rawStopReason: raw,
      usage: {
        inputTokens: this.usage.input + this.usage.cacheRead + this.usage.cacheWrite,
        outputTokens: this.usage.output,
        cacheReadTokens: this.usage.cacheRead,
        cacheWriteTokens: this.usage.cacheWrite,
      },
      model: this.model,
      requestId,
      stopSequence: this.stopSequence,
    };
  }

  private toolIndexOf(blockIndex: number): number {
    return this.blocks.slice(0, blockIndex).filter((b) => b?.type === 'tool_use').length;
  }
}
