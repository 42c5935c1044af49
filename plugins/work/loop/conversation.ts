/**
 * The conversation a model reads, rebuilt from the run's records every turn
 * (never stored whole): the goal, then per turn the assistant's words and
 * tool calls, the calls' results and any person's messages. Each record
 * holds only its own new content, so the log grows with the turns, not with
 * the square of the history; the provider request is assembled here.
 */
import type { ChatMessage, ToolResult } from '../providers/index.js';
import { CONTINUE_TEXT } from './work-kinds.js';
import type { RunState } from './run-state.js';

/** The opening user message: the goal, and the words of people who wrote before the first turn. */
function openingText(goal: string, messages: readonly string[]): string {
  return messages.length === 0 ? goal : [goal, ...messages].join('\n\n');
}

export function conversation(state: RunState): ChatMessage[] {
  const goal = typeof state.opening['goal'] === 'string' ? state.opening['goal'] : '';
  const messages: ChatMessage[] = [{ role: 'user', text: openingText(goal, state.messagesBefore) }];
  for (const turn of state.turns) {
    messages.push({
      role: 'assistant',
      text: turn.text,
      toolCalls: turn.calls.map((call) => ({
        id: call.callId,
        name: call.tool,
        input: call.input,
        ...(call.inputError === null ? {} : { inputError: call.inputError }),
        ...(call.rawInput === null ? {} : { rawInput: call.rawInput }),
      })),
    });
    const results: ToolResult[] = turn.calls.filter((call) => call.result !== null).map((call) => ({ callId: call.callId, content: call.result!.content, isError: !call.result!.ok }));
    if (results.length > 0) messages.push({ role: 'tool_results', results });
    const words = [...turn.messagesAfter];
    // A turn cut off without calls is followed by the kernel's words asking to go on (pause_turn likewise).
    if (turn.calls.length === 0 && (turn.stopReason === 'max_tokens' || turn.rawStopReason === 'pause_turn')) words.unshift(CONTINUE_TEXT);
    if (words.length > 0) messages.push({ role: 'user', text: words.join('\n\n') });
  }
  return messages;
}
