/**
 * A model turn in the Anthropic Messages wire format, built from the
 * adapters' deltas: the server-sent events of a streamed answer, in the
 * documented order (message_start, per block content_block_start, ping
 * after the first start, deltas, content_block_stop, then message_delta
 * with the stop reason and cumulative usage, message_stop), and the JSON
 * `Message` of a non-streamed one. Both come from the same events (the
 * JSON is what the events accumulate to, as the SDK's MessageStream adds
 * them up), so a streamed answer's `finalMessage()` equals the JSON answer
 * of the same turn by construction, whatever the provider behind it.
 */
import type { ModelDelta, ModelTurn, ProviderName } from '../providers/index.js';

export interface WireUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

export type WireBlock = { type: 'text'; text: string; citations: null } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface WireMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: WireBlock[];
  stop_reason: string | null;
  stop_sequence: string | null;
  stop_details: null;
  usage: WireUsage;
}

export interface WireEvent {
  /** The `event:` line; equal to `data.type`. */
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Anthropic's stop reasons: an Anthropic provider's own value passes as is; the others' are mapped from the normalized reason. */
const ANTHROPIC_STOPS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded']);

export function wireStopReason(provider: ProviderName, turn: ModelTurn): string {
  if (provider === 'anthropic' && ANTHROPIC_STOPS.has(turn.rawStopReason)) return turn.rawStopReason;
  switch (turn.stopReason) {
    case 'tool_use':
    case 'max_tokens':
    case 'refusal':
      return turn.stopReason;
    default:
      return 'end_turn';
  }
}

export class AnthropicWire {
  private started = false;
  private readonly content: Array<{ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; json: string; callIndex: number }> = [];
  private open = -1;
  private pinged = false;
  private model: string;
  private startUsage: WireUsage = { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 };
  private final: { stopReason: string; stopSequence: string | null; usage: WireUsage; inputs: Array<Record<string, unknown>> } | null = null;

  constructor(
    private readonly id: string,
    fallbackModel: string,
    private readonly provider: ProviderName,
  ) {
    this.model = fallbackModel;
  }

  get hasStarted(): boolean {
    return this.started;
  }

  /** The events a delta makes (none before `start`, which every adapter sends first). */
  delta(delta: ModelDelta): WireEvent[] {
    if (delta.type === 'start') {
      if (this.started) return [];
      this.started = true;
      if (delta.model) this.model = delta.model;
      this.startUsage = {
        input_tokens: delta.inputTokens ?? 0,
        cache_creation_input_tokens: delta.cacheWriteTokens ?? 0,
        cache_read_input_tokens: delta.cacheReadTokens ?? 0,
        output_tokens: 0,
      };
      return [{ event: 'message_start', data: { type: 'message_start', message: { ...this.envelope(), content: [], stop_reason: null, stop_sequence: null, usage: { ...this.startUsage } } } }];
    }
    if (!this.started) return [];
    const out: WireEvent[] = [];
    switch (delta.type) {
      case 'text': {
        if (delta.text === '') return [];
        const current = this.content[this.open];
        if (current?.type !== 'text') out.push(...this.begin({ type: 'text', text: '' }));
        (this.content[this.open] as { text: string }).text += delta.text;
        out.push(this.blockDelta({ type: 'text_delta', text: delta.text }));
        return out;
      }
      case 'tool_call': {
        out.push(...this.begin({ type: 'tool_use', id: delta.id, name: delta.name, json: '', callIndex: delta.index }));
        return out;
      }
      case 'tool_input': {
        const current = this.content[this.open];
        // A fragment for a call whose block is already closed cannot be sent on this wire; the turn's parsed input is the truth at the end.
        if (current?.type !== 'tool_use' || current.callIndex !== delta.index) return [];
        current.json += delta.json;
        out.push(this.blockDelta({ type: 'input_json_delta', partial_json: delta.json }));
        return out;
      }
    }
  }

  /** The closing events of a completed turn; the JSON message is `message()` after this. */
  finish(turn: ModelTurn): WireEvent[] {
    const out: WireEvent[] = [];
    // Text the adapter did not stream (an OpenAI refusal arrives in its own field) still belongs in the message.
    const streamed = this.content.some((block) => block.type === 'text');
    if (!streamed && turn.text !== '') out.push(...this.delta({ type: 'text', text: turn.text }));
    out.push(...this.close());
    const usage = turn.usage;
    const cacheRead = usage?.cacheReadTokens ?? this.startUsage.cache_read_input_tokens;
    const cacheWrite = usage?.cacheWriteTokens ?? this.startUsage.cache_creation_input_tokens;
    const wireUsage: WireUsage = {
      // Anthropic's input_tokens leaves out the cached ones; the turn's count includes them.
      input_tokens: usage ? Math.max(0, usage.inputTokens - cacheRead - cacheWrite) : this.startUsage.input_tokens,
      cache_creation_input_tokens: cacheWrite,
      cache_read_input_tokens: cacheRead,
      output_tokens: usage?.outputTokens ?? 0,
    };
    const stopReason = wireStopReason(this.provider, turn);
    this.final = { stopReason, stopSequence: stopReason === 'stop_sequence' ? (turn.stopSequence ?? null) : null, usage: wireUsage, inputs: turn.toolCalls.map((call) => ({ ...call.input })) };
    out.push(
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: this.final.stopSequence, stop_details: null }, usage: { ...wireUsage } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    );
    return out;
  }

  /** The message the events add up to (after `finish`): a tool call's input is the turn's parsed one. */
  message(): WireMessage {
    if (!this.final) throw new Error('message() before finish()');
    const inputs = this.final.inputs;
    return {
      ...this.envelope(),
      content: this.content.map((block): WireBlock => (block.type === 'text' ? { type: 'text', text: block.text, citations: null } : { type: 'tool_use', id: block.id, name: block.name, input: inputs[block.callIndex] ?? {} })),
      stop_reason: this.final.stopReason,
      stop_sequence: this.final.stopSequence,
      usage: { ...this.final.usage },
    };
  }

  private envelope() {
    return { id: this.id, type: 'message' as const, role: 'assistant' as const, model: this.model, content: [] as WireBlock[], stop_reason: null, stop_sequence: null, stop_details: null, usage: this.startUsage };
  }

  private begin(block: (typeof this.content)[number]): WireEvent[] {
    const out = this.close();
    this.content.push(block);
    this.open = this.content.length - 1;
    const start = block.type === 'text' ? { type: 'text', text: '', citations: null } : { type: 'tool_use', id: block.id, name: block.name, input: {} };
    out.push({ event: 'content_block_start', data: { type: 'content_block_start', index: this.open, content_block: start } });
    // Anthropic sends a ping after the first block starts; clients must tolerate pings anywhere, and Loom keeps the habit.
    if (!this.pinged) {
      this.pinged = true;
      out.push(PING);
    }
    return out;
  }

  private blockDelta(delta: Record<string, unknown>): WireEvent {
    return { event: 'content_block_delta', data: { type: 'content_block_delta', index: this.open, delta } };
  }

  private close(): WireEvent[] {
    if (this.open < 0) return [];
    const index = this.open;
    this.open = -1;
    return [{ event: 'content_block_stop', data: { type: 'content_block_stop', index } }];
  }
}

export const PING: WireEvent = Object.freeze({ event: 'ping', data: Object.freeze({ type: 'ping' }) }) as WireEvent;

/** One event as its bytes: the `event:` line (clients dispatch on it) and the JSON `data:` line. */
export function sseFrame(event: WireEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}
