/**
 * Named components. Any schema object carrying an `$id` (Record,
 * ErrorEnvelope, RecordList, ...) becomes `components.schemas[$id]` and is
 * replaced by a `$ref` wherever it appears, including inside other
 * components, so the SDK gets one `Record` type instead of one anonymous copy
 * per operation. Each node also goes through normalise-schema.ts.
 */
import type { ReferenceObject, SchemaObject } from 'openapi3-ts/oas31';
import { ErrorEnvelopeSchema, RecordInputSchema, RecordSchema } from '../core/plugin/shared-schemas.js';
import { normaliseSchemaNode } from './normalise-schema.js';

/** Components present even when no route reaches them: every SDK needs these. */
export const BASE_COMPONENTS = [ErrorEnvelopeSchema, RecordSchema, RecordInputSchema] as const;

export const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';

// Keywords whose value is data, not a schema: an `$id` inside them is not a component.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
// Keywords whose value maps names to schemas.
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
// OpenAPI 3.1 component names.
const COMPONENT_NAME = /^[a-zA-Z0-9._-]+$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export class ComponentRegistry {
  private readonly schemas = new Map<string, { schema: SchemaObject; json: string }>();

  constructor(seed: readonly unknown[] = BASE_COMPONENTS) {
    for (const schema of seed) this.schema(schema);
  }

  /**
   * A JSON copy of `schema` with every `$id` sub-schema hoisted into the
   * registry. The JSON round trip drops TypeBox's non-enumerable `~kind`
   * markers and anything else that is not JSON.
   */
  schema(schema: unknown): SchemaObject | ReferenceObject {
    return this.hoist(JSON.parse(JSON.stringify(schema)) as Json) as SchemaObject | ReferenceObject;
  }

  /** Components in name order, so the emitted document is stable. */
  sorted(): Array<[string, SchemaObject]> {
    return [...this.schemas.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, { schema }]) => [name, schema]);
  }

  private hoist(node: Json): Json {
    if (Array.isArray(node)) return node.map((item) => this.hoist(item));
    if (!isObject(node)) return node;
    const copy: { [key: string]: Json } = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$id') continue;
      if (DATA_KEYWORDS.has(key)) copy[key] = value;
      else if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, this.hoist(sub)]));
      else copy[key] = this.hoist(value);
    }
    const out = normaliseSchemaNode(copy) as { [key: string]: Json };
    const id = node['$id'];
    if (typeof id !== 'string') return out;
    this.register(id, out as SchemaObject);
    return { $ref: `#/components/schemas/${id}` };
  }

  private register(name: string, schema: SchemaObject): void {
    if (!COMPONENT_NAME.test(name)) throw new Error(`schema $id ${JSON.stringify(name)} is not a valid OpenAPI component name`);
    const json = JSON.stringify(schema);
    const existing = this.schemas.get(name);
    if (existing && existing.json !== json) throw new Error(`two different schemas share the $id ${JSON.stringify(name)}`);
    if (!existing) this.schemas.set(name, { schema, json });
  }
}
