/**
 * Client JSON → ParsedQuery, refusing anything ambiguous with INVALID_QUERY and
 * a message that says what and where. Operators: $eq $ne $gt $gte $lt $lte $in
 * $nin $like $ilike $regex $exists $and $or $not (spec §4.2 and the prior art's
 * complete list, docs/decisions.md).
 */
import { ACTS } from '../../../core/records/acts.js';
import { DATA_TYPES } from '../../../core/records/data-types.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import {
  FILTER_COLUMNS,
  MATCH_ALL,
  NUMBER_COLUMNS,
  QUERY_DEFAULT_LIMIT,
  QUERY_MAX_DEPTH,
  QUERY_MAX_IN_VALUES,
  QUERY_MAX_LIMIT,
  QUERY_MAX_NODES,
  QUERY_MAX_PATTERN_LENGTH,
  type ComparisonOperator,
  type FieldRef,
  type FilterColumn,
  type FilterNode,
  type ParsedQuery,
  type Scalar,
  type SortSpec,
} from './filter-ast.js';
import { compileLinearRegex, UnboundedPatternError } from './linear-regex.js';

const BODY_SEGMENT = /^[A-Za-z0-9_-]+$/;
const MAX_BODY_PATH_SEGMENTS = 16;
const QUERY_KEYS = new Set(['thread', 'filter', 'sort', 'limit', 'offset', 'explain']);
const FIELD_OPERATORS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$like', '$ilike', '$regex', '$options', '$exists', '$not']);
const columnSet: ReadonlySet<string> = new Set(FILTER_COLUMNS);

function invalid(message: string): LoomError {
  return new LoomError('INVALID_QUERY', message);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

export function parseFieldPath(path: unknown): FieldRef {
  if (typeof path !== 'string' || path.length === 0) throw invalid('field path must be a non-empty string');
  if (columnSet.has(path)) return { kind: 'column', column: path as FilterColumn };
  if (path === 'body') throw invalid('unknown field path: body (address a member, e.g. body.kind)');
  if (path.startsWith('body.')) {
    const segments = path.slice(5).split('.');
    if (segments.length > MAX_BODY_PATH_SEGMENTS) throw invalid(`field path ${path} has more than ${MAX_BODY_PATH_SEGMENTS} segments`);
    for (const segment of segments) {
      if (!BODY_SEGMENT.test(segment)) throw invalid(`field path ${path}: segment "${segment}" must match [A-Za-z0-9_-]+`);
    }
    return { kind: 'body', path: segments };
  }
  throw invalid(`unknown field path: ${path} (columns: ${FILTER_COLUMNS.join(', ')}; body members as body.<key>[.<key>...])`);
}

class FilterParser {
  private nodes = 0;

  parseFilter(raw: unknown, depth: number, where: string): FilterNode {
    if (!isPlainObject(raw)) throw invalid(`${where} must be an object`);
    this.count(depth, where);
    const conjuncts: FilterNode[] = [];
    for (const [key, value] of Object.entries(raw)) {
      if (key === '$and' || key === '$or') {
        if (!Array.isArray(value) || value.length === 0) throw invalid(`${where}.${key} must be a non-empty array of filters`);
        const nodes = value.map((child, i) => this.parseFilter(child, depth + 1, `${where}.${key}[${i}]`));
        conjuncts.push({ op: key === '$and' ? 'and' : 'or', nodes });
      } else if (key === '$not') {
        conjuncts.push({ op: 'not', node: this.parseFilter(value, depth + 1, `${where}.$not`) });
      } else if (key.startsWith('$')) {
        throw invalid(`unknown operator ${key} at ${where} (logical operators: $and, $or, $not)`);
      } else {
        conjuncts.push(this.parseCondition(parseFieldPath(key), value, depth + 1, `${where}.${key}`));
      }
    }
    return conjuncts.length === 1 ? conjuncts[0]! : { op: 'and', nodes: conjuncts };
  }

  private count(depth: number, where: string): void {
    if (depth > QUERY_MAX_DEPTH) throw invalid(`filter nests deeper than ${QUERY_MAX_DEPTH} levels at ${where}`);
    if (++this.nodes > QUERY_MAX_NODES) throw invalid(`filter has more than ${QUERY_MAX_NODES} nodes`);
  }

  private parseCondition(field: FieldRef, raw: unknown, depth: number, where: string): FilterNode {
    this.count(depth, where);
    if (!isPlainObject(raw)) {
      if (Array.isArray(raw)) throw invalid(`${where}: arrays are not compared for equality; use {"$in": [...]}`);
      return this.compare(field, '$eq', raw, where);
    }
    const keys = Object.keys(raw);
    if (keys.length === 0) throw invalid(`${where}: empty operator document`);
    const parts: FilterNode[] = [];
    for (const key of keys) {
      if (!key.startsWith('$')) throw invalid(`${where}: objects are not compared for equality; expected operators such as $eq, got key "${key}"`);
      if (!FIELD_OPERATORS.has(key)) throw invalid(`unknown operator ${key} at ${where}`);
      const operand = raw[key];
      switch (key) {
        case '$eq':
        case '$gt':
        case '$gte':
        case '$lt':
        case '$lte':
          parts.push(this.compare(field, key, operand, `${where}.${key}`));
          break;
        case '$ne':
          parts.push({ op: 'not', node: this.compare(field, '$eq', operand, `${where}.$ne`) });
          break;
        case '$in':
        case '$nin': {
          const node = this.inList(field, operand, `${where}.${key}`);
          parts.push(key === '$in' ? node : { op: 'not', node });
          break;
        }
        case '$like':
        case '$ilike':
          parts.push(this.like(field, operand, key === '$ilike', `${where}.${key}`));
          break;
        case '$regex':
          parts.push(this.regex(field, operand, raw['$options'], `${where}.$regex`));
          break;
        case '$options':
          if (!('$regex' in raw)) throw invalid(`${where}.$options is only valid beside $regex`);
          break;
        case '$exists':
          if (typeof operand !== 'boolean') throw invalid(`${where}.$exists must be true or false`);
          parts.push({ op: 'exists', field, exists: operand });
          break;
        case '$not':
          parts.push({ op: 'not', node: this.parseCondition(field, operand, depth + 1, `${where}.$not`) });
          break;
      }
    }
    return parts.length === 1 ? parts[0]! : { op: 'and', nodes: parts };
  }

  private compare(field: FieldRef, operator: ComparisonOperator, raw: unknown, where: string): FilterNode {
    const value = checkOperand(field, raw, where, operator !== '$eq');
    return { op: 'compare', field, operator, value };
  }

  private inList(field: FieldRef, raw: unknown, where: string): FilterNode {
    if (!Array.isArray(raw)) throw invalid(`${where} must be an array`);
    if (raw.length > QUERY_MAX_IN_VALUES) throw invalid(`${where} has more than ${QUERY_MAX_IN_VALUES} values`);
    const values = raw.map((v, i) => checkOperand(field, v, `${where}[${i}]`, false));
    return { op: 'in', field, values };
  }

  private like(field: FieldRef, raw: unknown, caseInsensitive: boolean, where: string): FilterNode {
    if (typeof raw !== 'string') throw invalid(`${where} must be a string pattern`);
    if (raw.length > QUERY_MAX_PATTERN_LENGTH) throw invalid(`${where} is longer than ${QUERY_MAX_PATTERN_LENGTH} characters`);
    if (field.kind === 'column' && NUMBER_COLUMNS.has(field.column)) throw invalid(`${where}: ${field.column} is a number; $like applies to strings`);
    return { op: 'like', field, pattern: raw, caseInsensitive };
  }

  private regex(field: FieldRef, raw: unknown, options: unknown, where: string): FilterNode {
    if (typeof raw !== 'string') throw invalid(`${where} must be a string`);
    if (raw.length > QUERY_MAX_PATTERN_LENGTH) throw invalid(`${where} is longer than ${QUERY_MAX_PATTERN_LENGTH} characters`);
    if (options !== undefined && (typeof options !== 'string' || !/^[ims]*$/.test(options))) {
      throw invalid(`${where.replace(/\$regex$/, '$options')} may contain only the flags i, m, s`);
    }
    if (field.kind === 'column' && NUMBER_COLUMNS.has(field.column)) throw invalid(`${where}: ${field.column} is a number; $regex applies to strings`);
    const flags = [...new Set(((options as string | undefined) ?? '') + 'u')].sort().join('');
    // Patterns run on the server's event loop: only what a linear-time automaton decides is accepted.
    try {
      compileLinearRegex(raw, flags);
    } catch (error) {
      if (error instanceof UnboundedPatternError) throw invalid(`${where} ${error.message}; $regex runs in linear time, so it refuses what cannot be bounded`);
      throw invalid(`${where} is not a valid regular expression: ${(error as Error).message}`);
    }
    return { op: 'regex', field, source: raw, flags };
  }
}

/** Checks an operand against the field's type; columns have fixed types, body members are compared by JSON type. */
function checkOperand(field: FieldRef, raw: unknown, where: string, ordered: boolean): Scalar {
  if (!isScalar(raw)) {
    if (typeof raw === 'number') throw invalid(`${where}: ${raw} is not a finite number`);
    throw invalid(`${where}: operand must be a string, number, boolean or null`);
  }
  if (ordered && raw === null) throw invalid(`${where}: null cannot be ordered; use $eq, $ne or $exists`);
  if (field.kind === 'body') return raw;
  const column = field.column;
  if (column === 'created_at') return createdAtOperand(raw, where);
  if (NUMBER_COLUMNS.has(column)) {
    if (typeof raw !== 'number') throw invalid(`${where}: ${column} is a number, got ${JSON.stringify(raw)}`);
    return raw;
  }
  if (column === 'judged_by' && raw === null) return raw;
  if (typeof raw !== 'string') throw invalid(`${where}: ${column} is a string, got ${JSON.stringify(raw)}`);
  if (column === 'act' && !(ACTS as readonly string[]).includes(raw)) throw invalid(`${where}: act must be one of ${ACTS.join(', ')}`);
  if (column === 'data_type' && !(DATA_TYPES as readonly string[]).includes(raw)) throw invalid(`${where}: data_type must be one of ${DATA_TYPES.join(', ')}`);
  return raw;
}

/** created_at is stored in Unix milliseconds; filters give Unix seconds (a number) or an ISO 8601 string. */
function createdAtOperand(raw: Scalar, where: string): number {
  if (typeof raw === 'number') return Math.round(raw * 1000);
  if (typeof raw === 'string') {
    const ms = Date.parse(raw);
    if (!Number.isNaN(ms) && /^\d{4}-\d{2}-\d{2}/.test(raw)) return ms;
  }
  throw invalid(`${where}: created_at takes Unix seconds or an ISO 8601 timestamp`);
}

export function parseFilter(raw: unknown): FilterNode {
  if (raw === undefined || raw === null) return MATCH_ALL;
  return new FilterParser().parseFilter(raw, 1, 'filter');
}

function parseSort(raw: unknown): SortSpec | null {
  if (raw === undefined || raw === null) return null;
  if (!isPlainObject(raw)) throw invalid('sort must be an object with a single key, e.g. {"clock": -1}');
  const keys = Object.keys(raw);
  if (keys.length !== 1) throw invalid(`sort must have exactly one key, got ${keys.length}`);
  const direction = raw[keys[0]!];
  if (direction !== 1 && direction !== -1) throw invalid(`sort direction must be 1 or -1, got ${JSON.stringify(direction)}`);
  return { field: parseFieldPath(keys[0]), direction };
}

function parseCount(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0) throw invalid(`${name} must be a non-negative integer`);
  if (raw > Number.MAX_SAFE_INTEGER) throw invalid(`${name} must be at most ${Number.MAX_SAFE_INTEGER}`);
  return raw;
}

/** The whole query body of POST /v1/records/query. */
export function parseRecordQuery(raw: unknown): ParsedQuery {
  if (!isPlainObject(raw)) throw invalid('query must be a JSON object');
  for (const key of Object.keys(raw)) {
    if (!QUERY_KEYS.has(key)) throw invalid(`unknown query field "${key}" (fields: ${[...QUERY_KEYS].join(', ')})`);
  }
  let filter = parseFilter(raw['filter']);
  if (raw['thread'] !== undefined) {
    if (typeof raw['thread'] !== 'string') throw invalid('thread must be a string');
    const threadNode: FilterNode = { op: 'compare', field: { kind: 'column', column: 'thread' }, operator: '$eq', value: raw['thread'] };
    filter = filter.op === 'and' ? { op: 'and', nodes: [threadNode, ...filter.nodes] } : { op: 'and', nodes: [threadNode, filter] };
  }
  if (raw['explain'] !== undefined && typeof raw['explain'] !== 'boolean') throw invalid('explain must be a boolean');
  const limit = parseCount(raw['limit'], 'limit', QUERY_DEFAULT_LIMIT);
  return {
    filter,
    sort: parseSort(raw['sort']),
    limit: Math.min(limit, QUERY_MAX_LIMIT),
    offset: parseCount(raw['offset'], 'offset', 0),
    explain: raw['explain'] === true,
  };
}
