/**
 * One tool as MCP publishes it (`tools/list`) and how it is called
 * (`tools/call`). Every tool comes from a schema Loom already has: a tool
 * registry descriptor (registry-tools.ts) or a route declaration
 * (operation-tools.ts); nothing here declares a schema of its own.
 */
import type { Caller } from '../../core/access/caller.js';
import { LoomError } from '../../core/errors/loom-error.js';

/** A plain JSON Schema object (what goes on the wire), never a TypeBox value. */
export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  readonly title: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** Who calls a tool: the MCP request's caller and its own credential header, as the route received them. */
export interface ToolCaller {
  readonly caller: Caller;
  /** Headers that carry the caller's identity (Authorization, X-Service-Actor), forwarded in-process only. */
  readonly credentialHeaders: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
}

export interface McpToolResult {
  /** Always a JSON object (MCP: structuredContent is an object). */
  readonly structuredContent: Record<string, unknown>;
  readonly isError: boolean;
}

export interface McpTool {
  /** `^[a-zA-Z0-9_-]{1,64}$` (the Anthropic API's custom-tool rule, within MCP's). */
  readonly name: string;
  /** `registry`: a ToolRegistry descriptor; `operation`: an HTTP operation by operationId. */
  readonly source: 'registry' | 'operation';
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema | null;
  readonly annotations: ToolAnnotations;
  call(args: Record<string, unknown>, who: ToolCaller): Promise<McpToolResult>;
}

export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A refusal as a tool result: the Loom envelope, so a client reads the same code an HTTP client gets. */
export function errorResult(error: unknown): McpToolResult {
  if (error instanceof LoomError) return { structuredContent: { ...error.toEnvelope() }, isError: true };
  return { structuredContent: { object: 'error', code: 'INTERNAL', message: 'internal error; the server log has details' }, isError: true };
}

/** A success whose answer may be any JSON: objects as they are, anything else under `result`. */
export function okResult(value: unknown): McpToolResult {
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value ?? null };
  return { structuredContent: structured, isError: false };
}
