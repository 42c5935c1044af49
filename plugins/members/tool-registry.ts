/**
 * The tools a member may be given (`work_loop.tools`): plugins contribute a
 * descriptor per tool they implement; define and patch accept only names
 * found here, and a bounded caller only tools whose scope it holds. The
 * work loop calls the tools; this registry only says which exist.
 */
import type { TSchema } from 'typebox';
import type { Caller } from '../../core/access/caller.js';
import type { Scope } from '../../core/access/scopes.js';
import { token } from '../../core/di/token.js';
import type { JsonObject, JsonValue } from '../../core/records/json.js';

/** What every tool call carries, whoever makes it. */
interface ToolCallBase {
  /**
   * The credential the tool acts with: a member's run grant
   * (plugins/work/loop/run-grant.ts), or an MCP client's own caller. A tool
   * reads and writes through it, under the same gates and read policy as an
   * HTTP client holding it, so it never does more than that credential.
   */
  readonly caller: Caller;
  /** Aborted when the run is cancelled, the MCP client goes away or the server stops: a long tool gives up. */
  readonly signal: AbortSignal;
}

/** A call a member's run makes: the run and the call record are known. */
export interface RunToolContext extends ToolCallBase {
  /** The member's DID (the run's actor). */
  readonly member: string;
  /** The run's thread (the run id). */
  readonly runThread: string;
  /** The tool call's record id on the run thread: what a record the tool writes may cite as a parent. */
  readonly callRecord: string;
}

/**
 * A call made outside any run (an MCP client calling the tool as itself,
 * plugins/mcp): there is no run thread and no call record to cite.
 */
export interface DirectToolContext extends ToolCallBase {
  readonly member?: undefined;
  readonly runThread?: undefined;
  readonly callRecord?: undefined;
}

/** What a tool runs with: a run's call, or a direct one. Tools that need a run declare `needsRun`. */
export type ToolContext = RunToolContext | DirectToolContext;

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
  /**
   * Only a run can call it (it reads its run or the call record: fan_out,
   * join); absent or false, it also runs for a direct caller (MCP), which
   * publishes only such tools.
   */
  readonly needsRun?: boolean;
  /** It can make a model call (start a run, dispatch to a member): MCP's openWorldHint. @default false */
  readonly callsModel?: boolean;
  /** JSON Schema of a successful answer when it is a JSON object (MCP's outputSchema); absent: not declared. */
  readonly outputSchema?: TSchema;
  /**
   * Runs the tool on input already checked against `inputSchema`. Answers
   * text or JSON the model reads; throws a LoomError (or any error) for a
   * failed call, which the loop records as an error result the model sees.
   */
  run(input: JsonObject, context: ToolContext): Promise<JsonValue>;
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
