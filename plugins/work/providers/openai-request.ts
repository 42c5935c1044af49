/**
 * A ModelRequest as OpenAI Chat Completions takes it (and the
 * OpenAI-compatible servers: vLLM, llama.cpp, Ollama's /v1): the system
 * prompt as the first message, tools as `{type: "function", function:
 * {name, description, parameters}}`, an assistant turn with `tool_calls`
 * whose arguments are a JSON string, and each tool result as its own
 * `role: "tool"` message naming the call. Chat Completions has no error
 * flag on a tool result, so a failed one says so in its content. Streaming
 * always asks for usage (`stream_options.include_usage`).
 */
import type OpenAI from 'openai';
import type { ChatMessage, ModelRequest } from './model-request.js';
import type { OpenAIConfig } from './provider-config.js';
import { toolInputJson } from './tool-input.js';

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** The prefix of a failed tool result's content, for vendors without an error flag. */
export const TOOL_ERROR_PREFIX = 'Error: ';

export function openaiParams(request: ModelRequest, maxTokensField: NonNullable<OpenAIConfig['maxTokensField']> = 'max_completion_tokens'): Params {
  const messages: Message[] = [];
  if (request.system !== null && request.system !== '') messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) messages.push(...openaiMessages(message));
  const params: Params = { model: request.model, messages, stream: true, stream_options: { include_usage: true } };
  params[maxTokensField] = request.maxTokens;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as Record<string, unknown> } }));
  }
  const options = request.options;
  if (options?.temperature !== undefined) params.temperature = options.temperature;
  if (options?.stopSequences !== undefined && options.stopSequences.length > 0) params.stop = [...options.stopSequences];
  const choice = options?.toolChoice;
  if (choice !== undefined && request.tools.length > 0) {
    // Anthropic's `any` is OpenAI's `required`; `tool` names the function.
    params.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type === 'any' ? 'required' : choice.type;
    if (choice.disableParallelToolUse === true && choice.type !== 'none') params.parallel_tool_calls = false;
  }
  return params;
}

function openaiMessages(message: ChatMessage): Message[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.text }];
    case 'assistant': {
      if (message.toolCalls.length === 0) return [{ role: 'assistant', content: message.text }];
      return [
        {
          role: 'assistant',
          content: message.text === '' ? null : message.text,
          tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: toolInputJson(call) } })),
        },
      ];
    }
    case 'tool_results':
      return message.results.map((result) => ({ role: 'tool' as const, tool_call_id: result.callId, content: result.isError ? TOOL_ERROR_PREFIX + result.content : result.content }));
  }
}
