/**
 * A TypeBox schema as the plain JSON Schema MCP carries: a deep copy (no
 * TypeBox internals), with `$id` removed everywhere. The ids name OpenAPI
 * components; inside one tool's self-contained schema they mean nothing, and
 * a client compiling every tool's schema with one validator (the SDK's Ajv)
 * would refuse the same id met twice with different neighbours.
 */
import type { TSchema } from 'typebox';
import type { JsonSchema } from './mcp-tool.js';

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (key !== '$id') out[key] = strip(inner);
  return out;
}

export function plainSchema(schema: TSchema): JsonSchema {
  return strip(JSON.parse(JSON.stringify(schema))) as JsonSchema;
}
