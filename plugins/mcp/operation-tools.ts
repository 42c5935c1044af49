/**
 * HTTP operations as MCP tools, generated from their route declarations by
 * operationId: what an AI client needs that the tool registry lacks (start,
 * read and cancel a work loop, open a thread, list and answer decisions).
 * An operation absent from the route table (its plugin not loaded, or not
 * built yet) is skipped.
 *
 * - input schema: the operation's path parameters, query and body, merged
 *   into one object (a name in two of them is a build error, never a guess);
 * - output schema: its 2xx response schema (one, or anyOf when they differ);
 * - the call: an in-process request through the whole HTTP pipeline
 *   (core/plugin/loopback.ts) with the MCP caller's own Authorization
 *   header, so the operation runs as that caller through the same
 *   authentication, scope gate, validation, read policy and error envelope
 *   as over the network. The header never leaves the process: a run started
 *   this way acts under the grant the start door writes on its opening.
 */
import type { TSchema } from 'typebox';
import type { Loopback } from '../../core/plugin/loopback.js';
import type { AnyRouteDecl } from '../../core/plugin/route.js';
import type { RouteCatalog } from '../../core/plugin/route-catalog.js';
import { annotationsOf, operationIsDestructive } from './annotations.js';
import { plainSchema } from './json-schema.js';
import { TOOL_NAME, type JsonSchema, type McpTool, type McpToolResult } from './mcp-tool.js';

export interface OperationToolSpec {
  readonly operationId: string;
  /** The operation can make a model call (starts or resumes a run): openWorldHint. */
  readonly callsModel: boolean;
}

/** The operations published as tools, when the route table has them. */
export const OPERATION_TOOLS: readonly OperationToolSpec[] = [
  { operationId: 'createThread', callsModel: false },
  { operationId: 'startWorkLoop', callsModel: true },
  { operationId: 'getWorkLoop', callsModel: false },
  { operationId: 'cancelWorkLoop', callsModel: false },
  // Decisions (issue 34): answering one resumes the waiting run, which calls its model.
  { operationId: 'listDecisions', callsModel: false },
  { operationId: 'decideDecision', callsModel: true },
];

type Part = 'params' | 'query' | 'body';
const PARTS: readonly Part[] = ['params', 'query', 'body'];

interface ObjectSchema {
  readonly type?: unknown;
  readonly properties?: Record<string, unknown>;
  readonly required?: readonly string[];
}

/** The merged input schema and which part each property belongs to. */
export function operationInput(route: AnyRouteDecl): { schema: JsonSchema; partOf: Map<string, Part> } {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const partOf = new Map<string, Part>();
  for (const part of PARTS) {
    const declared = route.request?.[part] as TSchema | undefined;
    if (!declared) continue;
    const schema = plainSchema(declared) as ObjectSchema;
    if (schema.type !== 'object') throw new Error(`${route.operationId}: its ${part} schema is not an object, so it cannot be a tool input`);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (partOf.has(name)) throw new Error(`${route.operationId}: ${name} is in both its ${partOf.get(name)} and its ${part}`);
      partOf.set(name, part);
      properties[name] = property;
    }
    required.push(...(schema.required ?? []));
  }
  return { schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false }, partOf };
}

/** The operation's 2xx response schema: one, or anyOf of the distinct ones; null when it answers no JSON object. */
export function operationOutput(route: AnyRouteDecl): JsonSchema | null {
  const distinct = new Map<string, JsonSchema>();
  for (const [status, spec] of Object.entries(route.responses)) {
    const code = Number(status);
    if (code < 200 || code >= 300 || !spec.schema) continue;
    const schema = plainSchema(spec.schema);
    distinct.set(JSON.stringify(schema), schema);
  }
  const schemas = [...distinct.values()];
  if (schemas.length === 0 || schemas.some((schema) => schema['type'] !== 'object')) return null;
  return schemas.length === 1 ? schemas[0]! : { type: 'object', anyOf: schemas };
}

function parse(text: string): unknown {
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return { text };
  }
}

export function operationTool(route: AnyRouteDecl, spec: OperationToolSpec, loopback: Loopback): McpTool {
  if (!TOOL_NAME.test(route.operationId)) throw new Error(`operationId ${route.operationId} is not a valid MCP tool name`);
  const { schema, partOf } = operationInput(route);
  const readOnly = route.method === 'GET';
  return {
    name: route.operationId,
    source: 'operation',
    description: [route.summary, route.description].filter(Boolean).join('. ').replace(/\.\. /g, '. ') + ` (HTTP ${route.method} ${route.path})`,
    inputSchema: schema,
    outputSchema: operationOutput(route),
    annotations: annotationsOf({ title: route.summary, readOnly, destructive: operationIsDestructive(route.method, route.operationId), callsModel: spec.callsModel }),
    async call(args, { credentialHeaders }): Promise<McpToolResult> {
      let path = route.path;
      const query = new URLSearchParams();
      const body: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(args)) {
        const part = partOf.get(name) ?? 'body';
        if (part === 'params') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
        else if (part === 'query') query.set(name, typeof value === 'string' ? value : JSON.stringify(value));
        else body[name] = value;
      }
      // A parameter left unfilled stays a literal {name}: the route's own validation refuses it as a client would be.
      const url = path + (query.size > 0 ? `?${query.toString()}` : '');
      const sendsBody = route.request?.body !== undefined || Object.keys(body).length > 0;
      const answer = await loopback.request({ method: route.method, url, headers: { ...credentialHeaders }, ...(sendsBody ? { body } : {}) });
      const value = parse(answer.text);
      const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
      return { structuredContent: structured, isError: answer.status >= 400 };
    },
  };
}

/** The operation tools this server can publish: those of OPERATION_TOOLS its route table has. */
export function operationTools(catalog: RouteCatalog, loopback: Loopback): McpTool[] {
  const routes = new Map(catalog.all().map(({ route }) => [route.operationId, route]));
  const tools: McpTool[] = [];
  for (const spec of OPERATION_TOOLS) {
    const route = routes.get(spec.operationId);
    if (route) tools.push(operationTool(route, spec, loopback));
  }
  return tools;
}
