/**
 * The tools a member may be given (`work_loop.tools`): plugins contribute a
 * descriptor per tool they implement; define and patch accept only names
 * found here, and a bounded caller only tools whose scope it holds. The
 * work loop calls the tools; this registry only says which exist.
 */
import type { TSchema } from 'typebox';
import type { Scope } from '../../core/access/scopes.js';
import { token } from '../../core/di/token.js';

export interface ToolDescriptor {
  /** snake_case, unique on the instance. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool's input. */
  readonly inputSchema: TSchema;
  /** The scope a caller must hold to give a member this tool (its reach). */
  readonly scope: Scope;
  /** MCP-style annotations: reads only; may destroy or overwrite. */
  readonly readOnly: boolean;
  readonly destructive: boolean;
  /** The plugin that contributed it. */
  readonly plugin: string;
}

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDescriptor>();

  add(tool: ToolDescriptor): void {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(tool.name)) throw new Error(`tool name ${JSON.stringify(tool.name)} must be snake_case (at most 64 characters)`);
    const existing = this.tools.get(tool.name);
    if (existing) throw new Error(`tool ${tool.name} of ${tool.plugin} is already contributed by ${existing.plugin}`);
    this.tools.set(tool.name, tool);
  }

  get(name: string): ToolDescriptor | undefined {
    return this.tools.get(name);
  }

  list(): ToolDescriptor[] {
    return [...this.tools.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
}

export const ToolRegistryToken = token<ToolRegistry>('members.ToolRegistry');
