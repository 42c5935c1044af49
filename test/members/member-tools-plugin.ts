/** A test plugin contributing tools to the members plugin's registry: one any writer may give, one only an admin may. */
import { Type } from 'typebox';
import { resolve } from '../../core/di/token.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { ToolRegistryToken } from '../../plugins/members/index.js';
import type { JsonObject, JsonValue } from '../../core/records/json.js';

export const TOOL_READ = 'test_read_thread';
export const TOOL_WRITE = 'test_write_note';
export const TOOL_ADMIN = 'test_rotate_keys';

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
    tools.add({ name: TOOL_ADMIN, description: 'Rotates keys.', inputSchema: input, scope: 'admin', readOnly: false, destructive: true, plugin: scope.name, run: echo });
  },
});
