/**
 * One MCP exchange (stateless Streamable HTTP): a new low-level SDK `Server`
 * for each request, answering `initialize`, `ping`, `logging/setLevel`,
 * `tools/list` and `tools/call` from the tool catalog, for one caller. No
 * session id, nothing kept between requests: a client's state lives in
 * Loom's records (threads are the handles a tool answers and takes).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpTool, ToolCaller } from './mcp-tool.js';
import type { McpToolCatalog } from './tool-catalog.js';

const INSTRUCTIONS =
  'Loom is a coordination ledger: append-only records on threads. Tools act as your credential, under its scopes and read policy. ' +
  'Threads are the handles: a tool that opens one answers its id; pass it to the others.';

export function wireTool(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Tool['outputSchema'] } : {}),
    annotations: { ...tool.annotations },
  };
}

export function mcpServer(catalog: McpToolCatalog, who: Omit<ToolCaller, 'signal'>, version: string): Server {
  const server = new Server({ name: 'loom', title: 'Loom', version }, { capabilities: { tools: { listChanged: false }, logging: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: catalog.list().map(wireTool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = catalog.get(request.params.name);
    // An unknown tool is a protocol error (MCP tools: -32602), not a tool result.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool named ${request.params.name}; tools/list names them`);
    const progressToken = request.params._meta?.progressToken;
    const progress = async (done: number) => {
      if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: done, total: 1 } });
    };
    await progress(0);
    const result = await tool.call(request.params.arguments ?? {}, { ...who, signal: extra.signal });
    await progress(1);
    // A refusal is the Loom envelope as text only: structuredContent must match the tool's outputSchema (the
    // SDK clients validate it whenever present, errors included), and the envelope is not the tool's output.
    if (result.isError) return { content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }], isError: true };
    return {
      // The text mirror for clients that read only content (MCP 2025-06-18 tools: structured content SHOULD be mirrored).
      content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }],
      structuredContent: result.structuredContent,
    };
  });
  return server;
}
