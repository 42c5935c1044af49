/**
 * The tools this server publishes over MCP, in one deterministic order (by
 * name): the tool registry's direct tools, then the generated operation
 * tools. Built once, on first use after every plugin registered (a plugin
 * loaded after this one may still contribute tools and routes); the same
 * list answers `tools/list` and the capabilities manifest's `mcp_tools`.
 */
import { token } from '../../core/di/token.js';
import type { McpTool } from './mcp-tool.js';

export class McpToolCatalog {
  private built: { list: McpTool[]; byName: Map<string, McpTool> } | null = null;

  constructor(private readonly build: () => McpTool[]) {}

  private state() {
    if (!this.built) {
      const list = this.build().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const byName = new Map<string, McpTool>();
      for (const tool of list) {
        if (byName.has(tool.name)) throw new Error(`two MCP tools are named ${tool.name}`);
        byName.set(tool.name, tool);
      }
      this.built = { list, byName };
    }
    return this.built;
  }

  list(): readonly McpTool[] {
    return this.state().list;
  }

  names(): string[] {
    return this.state().list.map((tool) => tool.name);
  }

  get(name: string): McpTool | undefined {
    return this.state().byName.get(name);
  }
}

export const McpToolCatalogToken = token<McpToolCatalog>('mcp.ToolCatalog');
