/**
 * A ModelRequest as the Anthropic Messages API takes it: `system` at the
 * top, tools with `input_schema`, an assistant turn as text and `tool_use`
 * blocks, tool results as `tool_result` blocks (with `is_error`) at the head
 * of the next user turn. Consecutive entries of one role become one message,
 * because the API wants user and assistant to alternate; an empty text block
 * is left out, because the API refuses it.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatMessage, ModelRequest } from './model-request.js';

type Params = Anthropic.Messages.MessageCreateParamsStreaming;
type Block = Anthropic.Messages.ContentBlockParam;

export function anthropicParams(request: ModelRequest): Params {
  const params: Params = { model: request.model, max_tokens: request.maxTokens, messages: anthropicMessages(request.messages), stream: true };
  if (request.system !== null && request.system !== '') params.system = request.system;
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema as Anthropic.Messages.Tool.InputSchema }));
  }
  const options = request.options;
  // The SDK's types no longer list `temperature` (1.14); the API still takes it, and a client that sent it means it.
  if (options?.temperature !== undefined) (params as Params & { temperature?: number }).temperature = options.temperature;
  if (options?.stopSequences !== undefined && options.stopSequences.length > 0) params.stop_sequences = [...options.stopSequences];
  const choice = options?.toolChoice;
  if (choice !== undefined) {
    const parallel = choice.disableParallelToolUse === undefined || choice.type === 'none' ? {} : { disable_parallel_tool_use: choice.disableParallelToolUse };
    params.tool_choice = choice.type === 'tool' ? { type: 'tool', name: choice.name, ...parallel } : ({ type: choice.type, ...parallel } as Anthropic.Messages.ToolChoice);
  }
  return params;
}

function anthropicMessages(messages: readonly ChatMessage[]): Anthropic.Messages.MessageParam[] {
  const out: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = blocksOf(message);
    if (blocks.length === 0) continue;
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  return out.map(({ role, content }) => {
    // tool_result blocks must open a user turn.
    const ordered = [...content.filter((b) => b.type === 'tool_result'), ...content.filter((b) => b.type !== 'tool_result')];
    return ordered.length === 1 && ordered[0]!.type === 'text' ? { role, content: ordered[0]!.text } : { role, content: ordered };
  });
}

function blocksOf(message: ChatMessage): Block[] {
  switch (message.role) {
    case 'user':
      return message.text === '' ? [] : [{ type: 'text', text: message.text }];
    case 'assistant':
      return [
        ...(message.text === '' ? [] : [{ type: 'text' as const, text: message.text }]),
        ...message.toolCalls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: call.input })),
      ];
    case 'tool_results':
      return message.results.map((result) => ({ type: 'tool_result' as const, tool_use_id: result.callId, content: result.content, is_error: result.isError }));
  }
}
