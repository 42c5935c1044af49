/**
 * FilterNode → PostgreSQL with exactly the meaning of
 * storage/contract/query/evaluate-filter.ts, in the SQLite driver's shape:
 * a filter compiles to `sure` (rows matching it certainly match) and
 * `possible` (rows not matching it certainly do not); rows between are
 * decided in JS by `matchesFilter`. NOT swaps the two.
 *
 * Body members are read from `body_doc` (jsonb). Equality on jsonb is exact
 * for strings, booleans and numbers (numeric equality of the shortest
 * round-trip decimals JSON.stringify wrote is double equality, and their
 * numeric order is double order), so most of the language compiles exactly.
 * Not exact: `$regex` (ECMAScript semantics), rows whose body jsonb cannot
 * hold (`body_doc` NULL: a U+0000 or a lone surrogate), and operands that
 * cannot be bound for the same reason. Every leaf is two-valued (COALESCE
 * to false), so SQL's NOT is the reference's `!`.
 */
import { NUMBER_COLUMNS, type FilterColumn, type FilterNode, type Scalar } from '../contract/query/filter-ast.js';
import { combineFilters, compileFilterWith, exactFilter, negateFilter, type FilterSql as SharedFilterSql, type LeafCompilers } from '../contract/query/sql-filter.js';
import { FALSE, TRUE, TRUTH, joinSql, notSql, pathArray, sql, unbindable, type PgValue, type SqlFragment } from './sql-fragment.js';

export type FilterSql = SharedFilterSql<PgValue>;

const exact = (fragment: SqlFragment): FilterSql => exactFilter(fragment);
const combine = (parts: readonly FilterSql[], operator: 'AND' | 'OR'): FilterSql => combineFilters(TRUTH, parts, operator);

export const COLUMN_SQL: Readonly<Record<FilterColumn, string>> = {
  id: 'id',
  thread: 'thread',
  actor: 'actor',
  act: 'act',
  clock: 'clock',
  data_type: 'data_type',
  judged_by: 'judged_by',
  namespace: 'namespace',
  created_at: 'created_at',
  sequence: 'seq',
};

/** Rows whose body only JS can read. */
const OPAQUE_BODY = sql('(body_doc IS NULL)');

/** `COALESCE(<x>, FALSE)`: a two-valued leaf. */
const twoValued = (fragment: SqlFragment): SqlFragment => ({ sql: `COALESCE(${fragment.sql}, FALSE)`, params: fragment.params });

/**
 * The member at `path` as jsonb, with a guard that every proper prefix is an
 * object (`#>` would also index into arrays, which the reference never does).
 */
function member(path: readonly string[]): { guard: SqlFragment; value: SqlFragment } {
  const segments = pathArray(path);
  const guards: SqlFragment[] = [];
  for (let i = 1; i < segments.length; i++) guards.push(sql(`jsonb_typeof(body_doc #> ?::text[]) = 'object'`, segments.slice(0, i)));
  return { guard: joinSql(guards, 'AND'), value: sql('(body_doc #> ?::text[])', segments) };
}

/** A body predicate: exact on rows with a jsonb body, JS decides the others. */
function bodyPredicate(test: SqlFragment): FilterSql {
  const sure = twoValued(test);
  return { sure, possible: joinSql([sure, OPAQUE_BODY], 'OR'), exact: false };
}

/** The nested object `{a: {b: value}}` a body must contain when body.a.b equals value (served by the GIN index). */
function containment(path: readonly string[], value: Scalar): string {
  let doc: unknown = value;
  for (let i = path.length - 1; i >= 0; i--) doc = { [path[i]!]: doc };
  return JSON.stringify(doc);
}

function jsonTypeOf(value: Scalar): string {
  if (value === null) return 'null';
  return typeof value === 'string' ? 'string' : typeof value === 'number' ? 'number' : 'boolean';
}

const OPERATOR = { $eq: '=', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

function bodyCompare(path: readonly string[], operator: keyof typeof OPERATOR, value: Scalar): FilterSql {
  const { guard, value: at } = member(path);
  if (typeof value === 'string' && unbindable(value)) {
    // No jsonb body holds such a string, so equality can only hold on an opaque body; an order can hold on any string.
    if (operator === '$eq') return { sure: FALSE, possible: OPAQUE_BODY, exact: false };
    return { sure: FALSE, possible: joinSql([twoValued(joinSql([guard, sql(`jsonb_typeof(${at.sql}) = 'string'`, ...at.params)], 'AND')), OPAQUE_BODY], 'OR'), exact: false };
  }
  const typed = sql(`jsonb_typeof(${at.sql}) = '${jsonTypeOf(value)}'`, ...at.params);
  if (operator === '$eq') {
    if (value === null) return bodyPredicate(joinSql([guard, typed], 'AND'));
    const contains = sql('body_doc @> ?::jsonb', containment(path, value));
    return bodyPredicate(joinSql([contains, guard, sql(`${at.sql} = ?::jsonb`, ...at.params, JSON.stringify(value))], 'AND'));
  }
  if (value === null) return exact(FALSE);
  const text = sql(`(body_doc #>> ?::text[])`, path);
  const cast = typeof value === 'string' ? `${text.sql} COLLATE "C"` : typeof value === 'number' ? `(${text.sql})::numeric` : `(${text.sql})::boolean`;
  const operand = typeof value === 'string' ? '?' : typeof value === 'number' ? '?::numeric' : '?::boolean';
  const bound = typeof value === 'number' ? JSON.stringify(value) : value;
  return bodyPredicate(joinSql([guard, typed, sql(`${cast} ${OPERATOR[operator]} ${operand}`, ...text.params, bound)], 'AND'));
}

function columnCompare(column: FilterColumn, operator: keyof typeof OPERATOR, value: Scalar): FilterSql {
  const name = COLUMN_SQL[column];
  if (value === null) return exact(operator === '$eq' && column === 'judged_by' ? sql('(judged_by IS NULL)') : FALSE);
  const numeric = NUMBER_COLUMNS.has(column);
  if (typeof value === 'boolean' || (typeof value === 'number') !== numeric) return exact(FALSE);
  if (typeof value === 'string') {
    if (unbindable(value)) {
      // Validated columns never hold U+0000 or a lone surrogate: equality never holds, an order is left to JS.
      if (operator === '$eq') return exact(FALSE);
      return { sure: FALSE, possible: column === 'judged_by' ? sql('(judged_by IS NOT NULL)') : TRUE, exact: false };
    }
    return exact(twoValued(sql(`${name} ${OPERATOR[operator]} ?`, value)));
  }
  // Integers compare as bigint (index-friendly); others as numeric.
  return exact(twoValued(Number.isSafeInteger(value) ? sql(`${name} ${OPERATOR[operator]} ?::bigint`, value) : sql(`${name}::numeric ${OPERATOR[operator]} ?::numeric`, JSON.stringify(value))));
}

function compileCompare(node: FilterNode & { op: 'compare' }): FilterSql {
  return node.field.kind === 'body' ? bodyCompare(node.field.path, node.operator, node.value) : columnCompare(node.field.column, node.operator, node.value);
}

function compileIn(node: FilterNode & { op: 'in' }): FilterSql {
  const field = node.field;
  if (field.kind === 'column' && !NUMBER_COLUMNS.has(field.column)) {
    const strings = node.values.filter((v): v is string => typeof v === 'string' && !unbindable(v));
    const parts: FilterSql[] = [];
    if (strings.length > 0) parts.push(exact(twoValued(sql(`${COLUMN_SQL[field.column]} = ANY(?::text[])`, strings))));
    if (node.values.includes(null)) parts.push(columnCompare(field.column, '$eq', null));
    return combine(parts, 'OR');
  }
  return combine(
    node.values.map((value) => (field.kind === 'body' ? bodyCompare(field.path, '$eq', value) : columnCompare(field.column, '$eq', value))),
    'OR',
  );
}

/** The reference's LIKE tokens (`%`, `_`, `\` escapes, a trailing `\` literal) re-escaped for PostgreSQL's LIKE. */
function likeForPostgres(pattern: string): string {
  const chars = [...pattern];
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && i + 1 < chars.length) {
      const next = chars[++i]!;
      out += next === '%' || next === '_' || next === '\\' ? `\\${next}` : next;
    } else if (ch === '\\') out += '\\\\';
    else out += ch;
  }
  return out;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
/** ASCII-only case folding, the reference's `foldAsciiCase` (ILIKE would follow the collation's rules). */
const foldAscii = (expression: string) => `translate(${expression}, '${UPPER}', '${LOWER}')`;
const foldAsciiText = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

function compileLike(node: FilterNode & { op: 'like' }): FilterSql {
  const field = node.field;
  if (field.kind === 'column' && NUMBER_COLUMNS.has(field.column)) return exact(FALSE);
  const pattern = likeForPostgres(node.caseInsensitive ? foldAsciiText(node.pattern) : node.pattern);
  if (field.kind === 'column') {
    if (unbindable(pattern)) return exact(FALSE);
    const value = node.caseInsensitive ? foldAscii(COLUMN_SQL[field.column]) : COLUMN_SQL[field.column];
    return exact(twoValued(sql(`${value} LIKE ? COLLATE "C"`, pattern)));
  }
  if (unbindable(pattern)) return { sure: FALSE, possible: OPAQUE_BODY, exact: false };
  const { guard, value: at } = member(field.path);
  const text = `(body_doc #>> ?::text[])`;
  const subject = node.caseInsensitive ? foldAscii(text) : text;
  return bodyPredicate(joinSql([guard, sql(`jsonb_typeof(${at.sql}) = 'string'`, ...at.params), sql(`${subject} LIKE ? COLLATE "C"`, field.path, pattern)], 'AND'));
}

function compileRegex(node: FilterNode & { op: 'regex' }): FilterSql {
  const field = node.field;
  if (field.kind === 'column') return NUMBER_COLUMNS.has(field.column) ? exact(FALSE) : { sure: FALSE, possible: field.column === 'judged_by' ? sql('(judged_by IS NOT NULL)') : TRUE, exact: false };
  const { guard, value: at } = member(field.path);
  const isString = twoValued(joinSql([guard, sql(`jsonb_typeof(${at.sql}) = 'string'`, ...at.params)], 'AND'));
  return { sure: FALSE, possible: joinSql([isString, OPAQUE_BODY], 'OR'), exact: false };
}

function compileExists(node: FilterNode & { op: 'exists' }): FilterSql {
  const field = node.field;
  if (field.kind === 'column') {
    if (field.column === 'judged_by') return exact(sql(`(judged_by ${node.exists ? 'IS NOT NULL' : 'IS NULL'})`));
    return exact(node.exists ? TRUE : FALSE);
  }
  const { guard, value: at } = member(field.path);
  const present = bodyPredicate(joinSql([guard, sql(`${at.sql} IS NOT NULL`, ...at.params)], 'AND'));
  return node.exists ? present : negateFilter(present);
}

/** PostgreSQL's leaves; the connectives are storage/contract/query/sql-filter.ts's. */
const LEAVES: LeafCompilers<PgValue> = { truth: TRUTH, compare: compileCompare, in: compileIn, like: compileLike, regex: compileRegex, exists: compileExists };

export function compileFilter(node: FilterNode): FilterSql {
  return compileFilterWith(LEAVES, node);
}
