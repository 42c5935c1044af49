/**
 * The one scripting language of the three provider fakes (fake-anthropic,
 * fake-openai, fake-ollama): a test enqueues vendor-neutral responses and
 * each fake renders them in its own wire protocol, so one loop test can run
 * against all three. Every field a vendor cannot express is ignored by that
 * vendor's fake (a `ping` position means nothing to OpenAI), never refused.
 */

/** Why the scripted turn stopped, in Anthropic's words (the richest set); each fake maps it to its own field. */
export type ScriptedStop = 'end_turn' | 'tool_use' | 'max_tokens' | 'refusal' | 'stop_sequence' | 'pause_turn' | 'model_context_window_exceeded';

export interface ScriptedToolCall {
  /** The vendor's call id; minted by the fake when absent (Ollama sends none at all). */
  readonly id?: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
  /**
   * How the input JSON is streamed (Anthropic `input_json_delta`, OpenAI
   * `function.arguments` fragments); the fragments must concatenate to valid
   * JSON unless the test means otherwise. Default: the JSON cut in three.
   * Ollama sends tool calls whole and ignores this.
   */
  readonly fragments?: readonly string[];
}

/** Faults injected while the answer is written; offsets count frames (SSE events, NDJSON lines) or bytes as named. */
export interface StreamFaults {
  /** Accept the request, then send nothing (not even headers) for this long. */
  readonly stallBeforeHeadersMs?: number;
  /** Destroy the socket without answering. */
  readonly resetBeforeHeaders?: boolean;
  /** After this many frames are written, send nothing for `ms`, then go on. */
  readonly stallAfterFrames?: { readonly frames: number; readonly ms: number };
  /** Destroy the socket (an RST, no clean end) after this many frames. */
  readonly resetAfterFrames?: number;
  /** After this many frames, send the vendor's in-stream error and end the response. */
  readonly errorAfterFrames?: { readonly frames: number; readonly type: string; readonly message: string };
  /** Replace the JSON of this frame with a truncated copy; for a JSON answer, truncate the body. */
  readonly malformedFrame?: number;
  /** Leave out the terminator: Anthropic `message_stop`, OpenAI `[DONE]`, Ollama's `done: true` line. */
  readonly omitTerminator?: boolean;
  /** Write one byte every this many ms (a slow drip). */
  readonly dripMs?: number;
  /** Split the bytes into writes: at these absolute byte offsets, or into pieces of `pieceBytes` bytes. */
  readonly split?: readonly number[] | { readonly pieceBytes: number };
  /** Anthropic only: `ping` events before these frame positions (default: one after the first content_block_start). */
  readonly pingsAt?: readonly number[];
  /** Anthropic only: an event of an unknown type before this frame position. */
  readonly unknownEventAt?: number;
  /** OpenAI only: leave `finish_reason` null on every chunk. */
  readonly omitFinishReason?: boolean;
}

export interface ScriptedTurn {
  readonly kind: 'turn';
  /** The assistant text; an array gives the delta fragments. Default: no text. */
  readonly text?: string | readonly string[];
  readonly toolCalls?: readonly ScriptedToolCall[];
  /** Default: `tool_use` when there are tool calls, else `end_turn`. */
  readonly stop?: ScriptedStop;
  /** The vendor's raw stop value, overriding the mapping of `stop` (to test values an adapter does not know). */
  readonly rawStop?: string;
  readonly usage?: { readonly input: number; readonly output: number };
  /** Default: the model the request named. */
  readonly model?: string;
  readonly faults?: StreamFaults;
}

/** An HTTP error answer in the vendor's own error body shape. */
export interface ScriptedError {
  readonly kind: 'error';
  readonly status: number;
  /** The vendor's error type; default from the status (Anthropic and OpenAI; Ollama has none). */
  readonly type?: string;
  readonly message?: string;
  /** The `retry-after` header, as sent (seconds or an HTTP date). */
  readonly retryAfter?: string;
  readonly faults?: Pick<StreamFaults, 'stallBeforeHeadersMs' | 'resetBeforeHeaders'>;
}

export type ScriptedResponse = ScriptedTurn | ScriptedError;

/** Shorthands for the common scripts. */
export const script = {
  text: (text: string | readonly string[], extra: Omit<ScriptedTurn, 'kind' | 'text'> = {}): ScriptedTurn => ({ kind: 'turn', text, ...extra }),
  toolCalls: (toolCalls: readonly ScriptedToolCall[], extra: Omit<ScriptedTurn, 'kind' | 'toolCalls'> = {}): ScriptedTurn => ({ kind: 'turn', toolCalls, ...extra }),
  error: (status: number, extra: Omit<ScriptedError, 'kind' | 'status'> = {}): ScriptedError => ({ kind: 'error', status, ...extra }),
};

export function textFragments(turn: ScriptedTurn): string[] {
  if (turn.text === undefined) return [];
  return typeof turn.text === 'string' ? (turn.text === '' ? [] : cutInto(turn.text, 3)) : [...turn.text];
}

export function fullText(turn: ScriptedTurn): string {
  return textFragments(turn).join('');
}

export function argumentFragments(call: ScriptedToolCall): string[] {
  return call.fragments ? [...call.fragments] : cutInto(JSON.stringify(call.input), 3);
}

export function stopOf(turn: ScriptedTurn): ScriptedStop {
  return turn.stop ?? ((turn.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

export function usageOf(turn: ScriptedTurn): { input: number; output: number } {
  return turn.usage ?? { input: 11, output: Math.max(1, Math.ceil(fullText(turn).length / 4) + 7 * (turn.toolCalls?.length ?? 0)) };
}

const minted = new WeakMap<ScriptedTurn, string[]>();
let mintCounter = 0;

/**
 * Ids for the script's tool calls that name none: fixed per scripted turn
 * (the same turn answered twice, streamed and as JSON, has the same ids) and
 * distinct across turns, as a run's tool-call ids are.
 */
export function mintedIds(turn: ScriptedTurn, prefix: string): string[] {
  let ids = minted.get(turn);
  if (!ids) {
    const n = ++mintCounter;
    ids = (turn.toolCalls ?? []).map((_, i) => `${n}x${i}`);
    minted.set(turn, ids);
  }
  return ids.map((id) => `${prefix}${id}`);
}

/** Cut text into `parts` pieces by code point (never inside a character: splitting bytes is the writer's job). */
function cutInto(text: string, parts: number): string[] {
  const chars = [...text];
  const size = Math.max(1, Math.ceil(chars.length / parts));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}
