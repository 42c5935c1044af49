/**
 * The MCP plugin: Loom as a tool server for AI clients (issue 34). One
 * endpoint, POST /v1/mcp (MCP 2025-11-25 Streamable HTTP, stateless),
 * publishing the tool registry's tools that run without a run and a few
 * HTTP operations as tools, all from schemas Loom already declares; plus
 * the OAuth Protected Resource Metadata an MCP client reads to find where
 * tokens come from. The MCP SDK stays inside this plugin (never in core).
 */
import { resolve } from '../../core/di/token.js';
import { LoopbackToken } from '../../core/plugin/loopback.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { RouteCatalogToken } from '../../core/plugin/route-catalog.js';
import { ToolRegistryToken } from '../members/index.js';
import { McpOptionsSchema, McpOptionsToken } from './config.js';
import type { McpTool } from './mcp-tool.js';
import { operationTools } from './operation-tools.js';
import { publishable, registryTool } from './registry-tools.js';
import { getMcpProtectedResourceMetadata, getProtectedResourceMetadata } from './routes/protected-resource.js';
import { postMcp } from './routes/post-mcp.js';
import { McpToolCatalog, McpToolCatalogToken } from './tool-catalog.js';

export { McpOptionsSchema, type McpOptions, MCP_PATH, PRM_MCP_PATH, PRM_ROOT_PATH } from './config.js';
export { McpToolCatalogToken, type McpToolCatalog } from './tool-catalog.js';
export type { McpTool } from './mcp-tool.js';
export { OPERATION_TOOLS, operationInput, operationOutput } from './operation-tools.js';
export { mcpServer, wireTool } from './mcp-session.js';

export const MCP_ROUTES = [postMcp, getProtectedResourceMetadata, getMcpProtectedResourceMetadata] as const;

export const mcpPlugin = definePlugin({
  name: 'mcp',
  version: '1.0.0',
  tags: { mcp: 'Model Context Protocol: Loom as a tool server for AI clients (Streamable HTTP, stateless), and the OAuth Protected Resource Metadata they read.' },
  dependencies: ['ledger'],
  // Registered after these, so their tools and routes are there when the catalog is first built.
  optionalDependencies: ['members', 'work', 'rules', 'search', 'trust', 'data-plane', 'auth'],
  options: McpOptionsSchema,
  register(scope, options) {
    const fromEnv = (process.env['LOOM_MCP_ALLOWED_ORIGINS'] ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
    scope.expose(McpOptionsToken, { allowedOrigins: [...options.allowedOrigins, ...fromEnv] });
    const container = scope.container;
    const registry = container.isRegistered(ToolRegistryToken as symbol, true) ? resolve(container, ToolRegistryToken) : null;
    const routes = resolve(container, RouteCatalogToken);
    const loopback = resolve(container, LoopbackToken);
    const logFailure = (error: unknown) => scope.log.log('error', 'MCP tool failed', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    const catalog = new McpToolCatalog((): McpTool[] => [
      ...(registry?.list().filter(publishable).map((descriptor) => registryTool(descriptor, logFailure)) ?? []),
      ...operationTools(routes, loopback),
    ]);
    scope.expose(McpToolCatalogToken, catalog);
    for (const route of MCP_ROUTES) scope.route(route);
    scope.corsHeaders(['mcp-protocol-version', 'mcp-session-id', 'last-event-id']);
    scope.capability('mcp.streamable_http', true);
    // The manifest's mcp_tools: exactly what tools/list answers (the same catalog).
    scope.describe('manifest', 'mcp_tools', () => catalog.names());
    // Built once every plugin registered: a bad tool name or schema stops the start, not a client's first call.
    scope.onStart(() => void catalog.list());
  },
});
