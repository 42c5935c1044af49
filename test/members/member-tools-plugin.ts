/** A test plugin contributing tools to the members plugin's registry: one any writer may give, one only an admin may. */
import { Type } from 'typebox';
import { resolve } from '../../core/di/token.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { ToolRegistryToken } from '../../plugins/members/index.js';
import type { JsonObject, JsonValue } from '../../core/records/json.js';

export const TOOL_READ = 'test_read_thread';
export const TOOL_WRITE = 'test_write_note';
export const TOOL_ADMIN = 'test_rotate_keys';
/** Answers `size` characters of text (varied words, as a page of a document): the large tool output of the linear-history test. */
export const TOOL_FETCH = 'test_fetch';
/** Fails with FAILED_ON_PURPOSE, always: the guardrail's test. */
export const TOOL_FAIL = 'test_fail';

const WORDS = ['ledger', 'thread', 'record', 'member', 'goal', 'turn', 'budget', 'review', 'change', 'result', 'quorum', 'signal'];
function page(size: number, seed: string): string {
  let text = '';
  let i = seed.length;
  while (text.length < size) text += WORDS[(i = (i * 7 + 3) % WORDS.length)] + (i % 5 === 0 ? '.\n' : ' ');
  return text.slice(0, size);
}

/** Answers with its input: these tools exist to be granted, not to do work. */
const echo = async (input: JsonObject): Promise<JsonValue> => input;

export const memberToolsPlugin = definePlugin({
  name: 'member-tools-test',
  version: '1.0.0',
  dependencies: ['members'],
  register(scope) {
    const tools = resolve(scope.container, ToolRegistryToken);
    const input = Type.Object({ thread: Type.String() });
    tools.add({ name: TOOL_READ, description: 'Reads a thread.', inputSchema: input, scope: 'records:read', readOnly: true, destructive: false, plugin: scope.name, run: echo });
    tools.add({ name: TOOL_WRITE, description: 'Writes a note.', inputSchema: input, scope: 'records:write', readOnly: false, destructive: false, plugin: scope.name, run: echo });
    tools.add({
      name: TOOL_FETCH,
      description: 'Fetches a page of text.',
      inputSchema: Type.Object({ page: Type.String(), size: Type.Integer({ minimum: 0, maximum: 100_000 }) }),
      scope: 'records:read',
      readOnly: true,
      destructive: false,
      plugin: scope.name,
      run: async (fields) => page(fields['size'] as number, fields['page'] as string),
    });
    tools.add({
      name: TOOL_FAIL,
      description: 'Always fails.',
      inputSchema: Type.Object({ thread: Type.String() }),
      scope: 'records:read',
      readOnly: true,
      destructive: false,
      plugin: scope.name,
      run: async () => {
        throw new LoomError('NOT_FOUND', 'failed on purpose');
      },
    });
    tools.add({ name: TOOL_ADMIN, description: 'Rotates keys.', inputSchema: input, scope: 'admin', readOnly: false, destructive: true, plugin: scope.name, run: echo });
  },
});
