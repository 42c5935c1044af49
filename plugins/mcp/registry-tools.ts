/**
 * Tool registry descriptors (plugins/members/tool-registry.ts) as MCP tools:
 * the descriptor's own input schema, output schema and flags, run with the
 * MCP caller's own Caller (a DirectToolContext: no run). A tool that needs a
 * run (fan_out, join) is not published. The coarse scope gate and the input
 * check run here as well as in defineTool, since a plugin may contribute a
 * descriptor without defineTool: an MCP caller meets both checks either way.
 */
import { Compile } from 'typebox/compile';
import { covers } from '../../core/access/scopes.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { JsonObject } from '../../core/records/json.js';
import type { ToolDescriptor } from '../members/index.js';
import { annotationsOf } from './annotations.js';
import { plainSchema } from './json-schema.js';
import { errorResult, okResult, TOOL_NAME, type McpTool } from './mcp-tool.js';

/** Whether MCP publishes the descriptor: it runs without a run. */
export function publishable(descriptor: ToolDescriptor): boolean {
  return descriptor.needsRun !== true;
}

export function registryTool(descriptor: ToolDescriptor, log: (error: unknown) => void): McpTool {
  if (!TOOL_NAME.test(descriptor.name)) throw new Error(`tool name ${descriptor.name} is not a valid MCP tool name`);
  const validator = Compile(descriptor.inputSchema);
  return {
    name: descriptor.name,
    source: 'registry',
    description: descriptor.description,
    inputSchema: plainSchema(descriptor.inputSchema),
    outputSchema: descriptor.outputSchema ? plainSchema(descriptor.outputSchema) : null,
    annotations: annotationsOf({ title: descriptor.name.replace(/_/g, ' '), readOnly: descriptor.readOnly, destructive: descriptor.destructive, callsModel: descriptor.callsModel === true }),
    async call(args, { caller, signal }) {
      try {
        if (!covers(caller.scopes, descriptor.scope)) throw new LoomError('SCOPE_FORBIDDEN', `this credential lacks the scope ${descriptor.scope} that ${descriptor.name} needs`, { scope: descriptor.scope });
        if (!validator.Check(args)) {
          const first = validator.Errors(args)[0];
          throw new LoomError('INVALID_SHAPE', `${descriptor.name} input ${first ? `${first.instancePath || '/'} ${first.message}` : 'does not match its schema'}`);
        }
        return okResult(await descriptor.run(args as JsonObject, { caller, signal }));
      } catch (error) {
        if (!(error instanceof LoomError)) log(error);
        return errorResult(error);
      }
    },
  };
}
