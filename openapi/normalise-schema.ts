/**
 * Rewrites of one schema node that keep its meaning but let generators type
 * it. Both are applied by components.ts to every node of the document; the
 * route declarations (and Ajv, which compiles them) are left unchanged.
 */

type JsonObject = { [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// TypeBox 1.x writes `Type.Record(Type.String(), X)` as `patternProperties: {'^.*$': X}`,
// which @hey-api/typescript types as `{[key: string]: unknown | X}`; the
// equivalent `additionalProperties: X` gives `{[key: string]: X}`. (`.` skips
// line terminators, so only keys containing a newline are judged differently.)
const ANY_KEY = '^.*$';

function mapToAdditionalProperties(node: JsonObject): JsonObject {
  const patterns = node['patternProperties'];
  if (!isObject(patterns) || Object.keys(patterns).length !== 1 || !(ANY_KEY in patterns)) return node;
  if ('additionalProperties' in node || 'properties' in node) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'patternProperties') out['additionalProperties'] = patterns[ANY_KEY];
    else out[key] = value;
  }
  return out;
}

// `{type: 'string', anyOf: [{pattern}, {enum}]}`: the branches only refine the
// parent's type, but generators read an untyped branch as `unknown`, which
// swallows the union. Copying the parent's `type` into each untyped branch
// accepts exactly the same values.
function typeUntypedBranches(node: JsonObject): JsonObject {
  const type = node['type'];
  if (type === undefined) return node;
  const out: JsonObject = { ...node };
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    out[keyword] = branches.map((branch) => (isObject(branch) && !('type' in branch) && !('$ref' in branch) && !('const' in branch) ? { type, ...branch } : branch));
  }
  return out;
}

// TypeBox writes a tuple draft-07 style, `items: [A, B], additionalItems: false`;
// OpenAPI 3.1 (JSON Schema 2020-12) spells it `prefixItems: [A, B], items: false`,
// and validators and linters of the document read only that.
function tupleAsPrefixItems(node: JsonObject): JsonObject {
  if (!Array.isArray(node['items'])) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'items') out['prefixItems'] = value;
    else if (key !== 'additionalItems') out[key] = value;
  }
  out['items'] = node['additionalItems'] === undefined ? true : node['additionalItems'];
  return out;
}

export function normaliseSchemaNode(node: JsonObject): JsonObject {
  return typeUntypedBranches(mapToAdditionalProperties(tupleAsPrefixItems(node)));
}
