/**
 * A ModelRequest as Ollama's `/api/chat` takes it: the system prompt as a
 * `system` message, tools as `{type: "function", function}`, an assistant
 * turn's tool calls whole with their arguments as an object (Ollama's calls
 * have no ids), and each tool result as a `role: "tool"` message that names
 * the tool (`tool_name`), found from the call it answers. The output
 * ceiling is `options.num_predict`. Ollama has no error flag on a tool
 * result, so a failed one says so in its content.
 */
import type { ChatRequest, Message } from 'ollama';
import type { ChatMessage, ModelRequest } from './model-request.js';
import { TOOL_ERROR_PREFIX } from './openai-request.js';

export function ollamaRequest(request: ModelRequest): ChatRequest & { stream: true } {
  const toolNames = new Map<string, string>();
  for (const message of request.messages) if (message.role === 'assistant') for (const call of message.toolCalls) toolNames.set(call.id, call.name);
  const messages: Message[] = [];
  if (request.system !== null && request.system !== '') messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) messages.push(...ollamaMessages(message, toolNames));
  const options = request.options;
  const chat: ChatRequest & { stream: true } = {
    model: request.model,
    messages,
    stream: true,
    options: {
      num_predict: request.maxTokens,
      ...(options?.temperature !== undefined ? { temperature: options.temperature } : {}),
      ...(options?.stopSequences !== undefined && options.stopSequences.length > 0 ? { stop: [...options.stopSequences] } : {}),
    },
  };
  // Ollama has no tool_choice: `none` is honoured by offering no tools; the others are the model's call.
  if (request.tools.length > 0 && options?.toolChoice?.type !== 'none') {
    chat.tools = request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.inputSchema as NonNullable<ChatRequest['tools']>[number]['function']['parameters'] } }));
  }
  return chat;
}

function ollamaMessages(message: ChatMessage, toolNames: ReadonlyMap<string, string>): Message[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.text }];
    case 'assistant':
      return [
        message.toolCalls.length === 0
          ? { role: 'assistant', content: message.text }
          : { role: 'assistant', content: message.text, tool_calls: message.toolCalls.map((call) => ({ function: { name: call.name, arguments: { ...call.input } } })) },
      ];
    case 'tool_results':
      return message.results.map((result) => ({ role: 'tool', content: result.isError ? TOOL_ERROR_PREFIX + result.content : result.content, tool_name: toolNames.get(result.callId) ?? '' }));
  }
}
