/**
 * MCP tool annotations, derived mechanically (never written per tool):
 * - readOnlyHint: a registry tool declared read-only; an operation that is a GET.
 * - destructiveHint: a registry tool declared destructive (it overwrites: write_file);
 *   an operation that is a DELETE or whose operationId starts with a verb that ends
 *   something for good (retire, revoke, delete, remove, cancel). Appends are not
 *   destructive: the ledger overwrites nothing.
 * - idempotentHint: reads only (a repeated append is a new record unless content-addressed
 *   and clock-pinned, which a client cannot count on).
 * - openWorldHint: the tool can make a model call (start or resume a run, dispatch to a
 *   member); everything else stays inside this Loom.
 */
import type { ToolAnnotations } from './mcp-tool.js';

const ENDING_VERBS = /^(retire|revoke|delete|remove|cancel)/;

export function annotationsOf(fields: { title: string; readOnly: boolean; destructive: boolean; callsModel: boolean }): ToolAnnotations {
  return {
    title: fields.title,
    readOnlyHint: fields.readOnly,
    destructiveHint: !fields.readOnly && fields.destructive,
    idempotentHint: fields.readOnly,
    openWorldHint: fields.callsModel,
  };
}

export function operationIsDestructive(method: string, operationId: string): boolean {
  return method === 'DELETE' || ENDING_VERBS.test(operationId);
}
