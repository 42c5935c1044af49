/**
 * What the work loop asks of a model, in no vendor's words: one system
 * prompt, the conversation so far, the tools the model may call and an
 * output ceiling. Each adapter maps it to its vendor's request (Anthropic
 * `tool_result` blocks in the next user turn, OpenAI `role: tool` messages,
 * Ollama tool messages); nothing here depends on which.
 */

export interface ModelRequest {
  /** The vendor's model id, as the models catalog names it. */
  readonly model: string;
  /** The system prompt; null for none. */
  readonly system: string | null;
  /** The conversation, oldest first; starts with a user message. */
  readonly messages: readonly ChatMessage[];
  /** Tools the model may call; empty for none. */
  readonly tools: readonly ToolSpec[];
  /** Output ceiling in tokens for this call (the loop clamps it to the remaining budget). */
  readonly maxTokens: number;
  /**
   * Sampling and tool-use controls a client of the chat proxy may set; the
   * loop sets none. Each adapter maps what its vendor has (see each
   * *-request.ts) and leaves out what it has not.
   */
  readonly options?: RequestOptions;
}

export interface RequestOptions {
  readonly temperature?: number;
  /** Text that ends the turn when the model writes it. */
  readonly stopSequences?: readonly string[];
  readonly toolChoice?: ToolChoice;
}

/** Anthropic's tool_choice, the richest: `auto` (may call), `any` (must call some), `tool` (must call this one), `none` (must not call). */
export type ToolChoice =
  | { readonly type: 'auto' | 'any' | 'none'; readonly disableParallelToolUse?: boolean }
  | { readonly type: 'tool'; readonly name: string; readonly disableParallelToolUse?: boolean };

export type ChatMessage = UserMessage | AssistantMessage | ToolResultsMessage;

export interface UserMessage {
  readonly role: 'user';
  readonly text: string;
}

/** A model turn as it goes back to the model: its text and the tool calls it made. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

/** The results of the previous assistant message's tool calls, one per call. */
export interface ToolResultsMessage {
  readonly role: 'tool_results';
  readonly results: readonly ToolResult[];
}

export interface ToolSpec {
  /** `^[a-zA-Z0-9_-]{1,64}$`: the strictest vendor rule (Anthropic's). */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input; `type: "object"` at the top. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

export interface ToolCall {
  /** The vendor's call id; minted by the adapter where the vendor sends none (Ollama). */
  readonly id: string;
  readonly name: string;
  /** The parsed input; `{}` when the model's JSON was not an object (see `inputError`). */
  readonly input: Readonly<Record<string, unknown>>;
  /**
   * Set when the model's input was not a JSON object (cut off by max_tokens,
   * or malformed): the loop answers the call with an error result the model
   * sees, instead of running the tool on a guess.
   */
  readonly inputError?: string;
  /** With `inputError`: the input exactly as the model streamed it, sent back verbatim where the vendor takes a string (OpenAI). */
  readonly rawInput?: string;
}

export interface ToolResult {
  /** The `ToolCall.id` this answers. */
  readonly callId: string;
  readonly content: string;
  /** The tool failed (or its input was refused); Anthropic sends `is_error`, the others prefix the content. */
  readonly isError: boolean;
}
