/**
 * Says what was wrong with a request and what is accepted, from the first
 * problem TypeBox reports, in the request's terms: `query: unknown parameter
 * "offset" (accepted: after, limit)`, `body.act: must be one of "KNOW",
 * "DO" (got "know")`, never the validator's own words (`schema is false`,
 * `must be equal to constant`).
 */
import type { TSchema } from 'typebox';

interface SchemaError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly params: Record<string, unknown>;
  readonly message: string;
}

type Part = 'params' | 'query' | 'body' | 'headers';

const NOUN: Record<Part, string> = { params: 'path parameter', query: 'parameter', body: 'field', headers: 'header' };

function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

function schemaAt(root: TSchema, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const segment of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    const properties = schema['properties'] as Record<string, unknown> | undefined;
    node = properties && segment in properties ? properties[segment] : /^\d+$/.test(segment) ? schema['items'] : undefined;
  }
  return node as Record<string, unknown> | undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : String(value);
}

const TYPE_NAMES: Record<string, string> = { integer: 'an integer', number: 'a number', string: 'a string', boolean: 'true or false', object: 'an object', array: 'an array', null: 'null' };

/** What a schema accepts, in words: `a string or null`, `one of "a", "b"`. */
function accepted(node: Record<string, unknown>): string {
  if ('const' in node) return JSON.stringify(node['const']);
  if (Array.isArray(node['enum'])) return `one of ${node['enum'].map((v) => JSON.stringify(v)).join(', ')}`;
  if (Array.isArray(node['anyOf'])) return [...new Set((node['anyOf'] as Record<string, unknown>[]).map(accepted))].join(' or ');
  const type = node['type'];
  if (typeof type === 'string') return TYPE_NAMES[type] ?? type;
  return 'a value of the documented form';
}

export function validationMessage(part: Part, errors: readonly SchemaError[], schema: TSchema, value: unknown): string {
  const first = errors[0];
  if (!first) return `${part}: is invalid`;
  const where = (pointer: string) => `${part}${pointer.replace(/\//g, '.')}`;
  const got = (pointer: string) => describe(valueAt(value, pointer));

  // A union (anyOf) fails in every branch, and the validator's summary of that is its own jargon: list what each branch accepts.
  const segments = first.instancePath.split('/').slice(1);
  for (let depth = 1; depth <= segments.length; depth++) {
    const pointer = `/${segments.slice(0, depth).join('/')}`;
    const node = schemaAt(schema, pointer);
    if (!node || !Array.isArray(node['anyOf'])) continue;
    // An object where an object is one of the choices: say what is wrong with its members.
    const at = valueAt(value, pointer);
    const objectBranch = (node['anyOf'] as Record<string, unknown>[]).find((branch) => branch['type'] === 'object');
    if (objectBranch && at !== null && typeof at === 'object' && !Array.isArray(at)) {
      const members = Object.keys((objectBranch['properties'] as object | undefined) ?? {});
      const unknown = objectBranch['additionalProperties'] === false ? Object.keys(at).find((key) => !members.includes(key)) : undefined;
      if (unknown !== undefined) return `${where(pointer)}: unknown ${NOUN[part]} ${JSON.stringify(unknown)} (accepted: ${members.join(', ') || 'none'})`;
      const missing = ((objectBranch['required'] as string[] | undefined) ?? []).filter((name) => !(name in at));
      if (missing.length > 0) return `${where(pointer)}: ${missing.map((name) => JSON.stringify(name)).join(', ')} ${missing.length > 1 ? 'are' : 'is'} required`;
    }
    return `${where(pointer)}: must be ${accepted(node)} (got ${got(pointer)})`;
  }

  // An unknown member: TypeBox reports it as the `false` schema of additionalProperties.
  const extra = errors.find((e) => e.keyword === 'additionalProperties') ?? (first.keyword === 'boolean' && first.schemaPath.endsWith('/additionalProperties') ? first : undefined);
  if (extra) {
    const pointer = extra.keyword === 'boolean' ? extra.instancePath : `${extra.instancePath}/${String((extra.params['additionalProperties'] as string[] | undefined)?.[0] ?? '')}`;
    const parent = pointer.slice(0, pointer.lastIndexOf('/'));
    const name = pointer.slice(pointer.lastIndexOf('/') + 1);
    const accepted = Object.keys((schemaAt(schema, parent)?.['properties'] as object | undefined) ?? {});
    return `${where(parent)}: unknown ${NOUN[part]} ${JSON.stringify(name)} (${accepted.length ? `accepted: ${accepted.join(', ')}` : `no ${NOUN[part]}s are accepted`})`;
  }
  switch (first.keyword) {
    case 'required': {
      const missing = (first.params['requiredProperties'] as string[] | undefined) ?? [];
      return `${where(first.instancePath)}: ${missing.map((name) => JSON.stringify(name)).join(', ')} ${missing.length > 1 ? 'are' : 'is'} required`;
    }
    case 'const': {
      // A union of constants fails once per branch: list every accepted value.
      const allowed = errors.filter((e) => e.keyword === 'const' && e.instancePath === first.instancePath).map((e) => JSON.stringify(e.params['allowedValue']));
      return `${where(first.instancePath)}: must be ${allowed.length > 1 ? `one of ${allowed.join(', ')}` : allowed[0]} (got ${got(first.instancePath)})`;
    }
    case 'enum':
      return `${where(first.instancePath)}: must be one of ${((first.params['allowedValues'] as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')} (got ${got(first.instancePath)})`;
    case 'type': {
      const expected = String(first.params['type']);
      return `${where(first.instancePath)}: must be ${TYPE_NAMES[expected] ?? expected} (got ${got(first.instancePath)})`;
    }
    case 'pattern':
      return `${where(first.instancePath)}: ${got(first.instancePath)} is not in the accepted form (${String(first.params['pattern'])})`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${where(first.instancePath)}: must be ${first.keyword === 'minimum' ? 'at least' : 'more than'} ${String(first.params['limit'])} (got ${got(first.instancePath)})`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${where(first.instancePath)}: must be ${first.keyword === 'maximum' ? 'at most' : 'less than'} ${String(first.params['limit'])} (got ${got(first.instancePath)})`;
    case 'minLength':
      return `${where(first.instancePath)}: must be at least ${String(first.params['limit'])} characters`;
    case 'maxLength':
      return `${where(first.instancePath)}: must be at most ${String(first.params['limit'])} characters`;
    case 'minItems':
      return `${where(first.instancePath)}: must hold at least ${String(first.params['limit'])} items`;
    case 'maxItems':
      return `${where(first.instancePath)}: must hold at most ${String(first.params['limit'])} items`;
    default:
      // Every other keyword: what the schema there accepts, not the validator's sentence.
      return `${where(first.instancePath)}: must be ${accepted(schemaAt(schema, first.instancePath) ?? {})} (got ${got(first.instancePath)})`;
  }
}
