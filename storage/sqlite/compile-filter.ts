/**
 * FilterNode → parameterised SQL with exactly the meaning of
 * storage/contract/query/evaluate-filter.ts.
 *
 * Every predicate is two-valued (0 or 1, never NULL), so SQL's NOT behaves as
 * the reference's `!`: `$ne`/`$nin` (parsed as not(...)) then match missing
 * members, as the reference says they must.
 *
 * Most nodes compile exactly. A few cannot (`$regex`: SQLite has no REGEXP and
 * node-sqlite3 cannot register one; ordered comparisons of REAL body numbers,
 * see `uncertaintyBand`; LIKE on text holding U+0000, where SQLite's matcher
 * stops). So a filter compiles to two predicates: rows matching `sure`
 * certainly match, rows not matching `possible` certainly do not, and the
 * rows between are decided in JS by `matchesFilter`. NOT swaps the two.
 */
import { NUMBER_COLUMNS, type FieldRef, type FilterColumn, type FilterNode, type Scalar } from '../contract/query/filter-ast.js';
import { idKey, textKey } from './index-keys.js';
import { likeForSqlite, likeToGlob } from './like-to-sql.js';
import { compileFilterWith, exactFilter, type FilterSql as SharedFilterSql, type LeafCompilers } from '../contract/query/sql-filter.js';
import type { BindValue } from './sqlite-database.js';
import {
  BODY_NUMBER,
  BODY_NUMBER_INEXACT,
  FALSE,
  TRUE,
  TRUTH,
  bindScalar,
  joinSql,
  jsonPath,
  notSql,
  sql,
  uncertaintyBand,
  type SqlFragment,
} from './sql-fragment.js';

export type FilterSql = SharedFilterSql<BindValue>;

const exact = (fragment: SqlFragment): FilterSql => exactFilter(fragment);

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

/** The JSON type of an operand; a comparison matches only values of the same one. */
type JsonClass = 'text' | 'number' | 'boolean' | 'null';

function classOf(value: Scalar): JsonClass {
  if (value === null) return 'null';
  if (typeof value === 'string') return 'text';
  return typeof value === 'number' ? 'number' : 'boolean';
}

/** Two-valued tests that a body member is present with a JSON type of the class. */
const BODY_TYPE_GUARD: Readonly<Record<JsonClass, string>> = {
  text: `json_type(body, ?) IS 'text'`,
  number: `COALESCE(json_type(body, ?), '') IN ('integer', 'real')`,
  boolean: `COALESCE(json_type(body, ?), '') IN ('true', 'false')`,
  null: `json_type(body, ?) IS 'null'`,
};

/** A field read as a present value of one class: a two-valued guard (null: always) and its SQL value. */
interface TypedAccess {
  readonly guard: SqlFragment | null;
  readonly value: SqlFragment;
}

/** How to read `field` as a `cls` value, or null when it never holds one. Body numbers go through `bodyNumber*`. */
function access(field: FieldRef, cls: Exclude<JsonClass, 'null'>): TypedAccess | null {
  if (field.kind === 'body') {
    const path = jsonPath(field.path);
    return { guard: sql(BODY_TYPE_GUARD[cls], path), value: sql('json_extract(body, ?)', path) };
  }
  if (cls !== (NUMBER_COLUMNS.has(field.column) ? 'number' : 'text')) return null;
  // judged_by may be null, which only `$eq: null` (see isNull) and `$exists: false` match.
  const guard = field.column === 'judged_by' ? sql('judged_by IS NOT NULL') : null;
  return { guard, value: sql(COLUMN_SQL[field.column]) };
}

/** `(guard AND <value><rest>)`. */
function guarded(a: TypedAccess, rest: string, ...params: BindValue[]): SqlFragment {
  const test = { sql: `${a.value.sql}${rest}`, params: [...a.value.params, ...params] };
  return joinSql(a.guard ? [a.guard, test] : [test], 'AND');
}

/** What `$eq: null` matches: a JSON null body member, an unjudged record; no other column is ever null. */
function isNull(field: FieldRef): SqlFragment {
  if (field.kind === 'body') return sql(`(${BODY_TYPE_GUARD.null})`, jsonPath(field.path));
  return field.column === 'judged_by' ? sql('(judged_by IS NULL)') : FALSE;
}

const SQL_OPERATOR = { $eq: '=', $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' } as const;

/**
 * Body numbers are equal exactly when their JSON texts are: the body was
 * stored with JSON.stringify, which writes each double one way, and
 * `body -> path` returns that text untouched.
 */
function bodyNumberIn(path: string, values: readonly number[]): SqlFragment {
  const texts = values.map((v) => JSON.stringify(v));
  return sql(`(${BODY_TYPE_GUARD.number} AND (body -> ?) IN (${texts.map(() => '?').join(', ')}))`, path, path, ...texts);
}

function bodyNumberOrdered(path: string, operator: '$gt' | '$gte' | '$lt' | '$lte', value: number): FilterSql {
  const isNumber = sql(BODY_TYPE_GUARD.number, path);
  const test = sql(`${BODY_NUMBER} ${SQL_OPERATOR[operator]} ?`, path, value);
  const near = sql(`(${BODY_NUMBER_INEXACT} AND COALESCE(ABS(${BODY_NUMBER} - ?) <= ?, 1))`, path, path, value, uncertaintyBand(value));
  // The same text is the same double, whatever SQLite read it as.
  const whenEqual = operator === '$gte' || operator === '$lte' ? '1' : '0';
  const decide = (otherwise: SqlFragment): SqlFragment =>
    joinSql([isNumber, sql(`CASE WHEN (body -> ?) = ? THEN ${whenEqual} ELSE ${otherwise.sql} END`, path, JSON.stringify(value), ...otherwise.params)], 'AND');
  return {
    sure: decide(joinSql([test, notSql(near)], 'AND')),
    possible: decide(joinSql([test, near], 'OR')),
    exact: false,
  };
}

function compileCompare(node: FilterNode & { op: 'compare' }): FilterSql {
  const { field, operator, value } = node;
  if (value === null) return exact(operator === '$eq' ? isNull(field) : FALSE);
  if (typeof value === 'number' && field.kind === 'body') {
    const path = jsonPath(field.path);
    return operator === '$eq' ? exact(bodyNumberIn(path, [value])) : bodyNumberOrdered(path, operator, value);
  }
  const a = access(field, classOf(value) as Exclude<JsonClass, 'null'>);
  if (!a) return exact(FALSE);
  const keyed = operator === '$eq' && typeof value === 'string' ? keyedColumnIn(field, [value]) : null;
  return exact(keyed ?? guarded(a, ` ${SQL_OPERATOR[operator]} ?`, bindScalar(value)));
}

/** Columns indexed through a compact key (index-keys.ts), with their key column and function. */
const KEYED_COLUMNS: Partial<Record<FilterColumn, { key: string; of: (text: string) => number }>> = {
  id: { key: 'id_key', of: idKey },
  thread: { key: 'thread_key', of: textKey },
  actor: { key: 'actor_key', of: textKey },
};

/** `(x_key IN (keys) AND x IN (values))` for an equality on a keyed column, so its index serves it. */
function keyedColumnIn(field: FieldRef, values: readonly string[]): SqlFragment | null {
  if (field.kind !== 'column') return null;
  const keyed = KEYED_COLUMNS[field.column];
  if (!keyed) return null;
  const keys = [...new Set(values.map(keyed.of))];
  const marks = (n: number) => new Array(n).fill('?').join(', ');
  return sql(`(${keyed.key} IN (${marks(keys.length)}) AND ${COLUMN_SQL[field.column]} IN (${marks(values.length)}))`, ...keys, ...values);
}

function compileIn(node: FilterNode & { op: 'in' }): FilterSql {
  const byClass = new Map<JsonClass, Scalar[]>();
  for (const value of node.values) byClass.set(classOf(value), [...(byClass.get(classOf(value)) ?? []), value]);
  const parts: SqlFragment[] = [];
  for (const [cls, values] of byClass) {
    if (cls === 'null') parts.push(isNull(node.field));
    else if (cls === 'number' && node.field.kind === 'body') parts.push(bodyNumberIn(jsonPath(node.field.path), values as number[]));
    else {
      const a = access(node.field, cls);
      const keyed = cls === 'text' ? keyedColumnIn(node.field, values as string[]) : null;
      if (keyed) parts.push(keyed);
      else if (a) parts.push(guarded(a, ` IN (${values.map(() => '?').join(', ')})`, ...values.map(bindScalar)));
    }
  }
  return exact(joinSql(parts, 'OR'));
}

function compileLike(node: FilterNode & { op: 'like' }): FilterSql {
  const a = access(node.field, 'text');
  if (!a) return exact(FALSE);
  const present = a.guard ?? TRUE;
  // SQLite's LIKE and GLOB stop at U+0000, in the pattern and in the value: JS decides those.
  if (node.pattern.includes('\u0000')) return { sure: FALSE, possible: present, exact: false };
  const match = node.caseInsensitive
    ? sql(`${a.value.sql} LIKE ? ESCAPE '\\'`, ...a.value.params, likeForSqlite(node.pattern))
    : sql(`${a.value.sql} GLOB ?`, ...a.value.params, likeToGlob(node.pattern));
  const noNul = sql(`instr(${a.value.sql}, char(0)) = 0`, ...a.value.params);
  return {
    sure: joinSql([present, noNul, match], 'AND'),
    possible: joinSql([present, joinSql([notSql(noNul), match], 'OR')], 'AND'),
    exact: false,
  };
}

function compileExists(node: FilterNode & { op: 'exists' }): FilterSql {
  const test = node.exists ? 'IS NOT NULL' : 'IS NULL';
  if (node.field.kind === 'body') return exact(sql(`(json_type(body, ?) ${test})`, jsonPath(node.field.path)));
  if (node.field.column === 'judged_by') return exact(sql(`(judged_by ${test})`));
  return exact(node.exists ? TRUE : FALSE);
}

function compileRegex(node: FilterNode & { op: 'regex' }): FilterSql {
  const a = access(node.field, 'text');
  return a ? { sure: FALSE, possible: a.guard ?? TRUE, exact: false } : exact(FALSE);
}

/** SQLite's leaves; the connectives are storage/contract/query/sql-filter.ts's. */
const LEAVES: LeafCompilers<BindValue> = { truth: TRUTH, compare: compileCompare, in: compileIn, like: compileLike, regex: compileRegex, exists: compileExists };

export function compileFilter(node: FilterNode): FilterSql {
  return compileFilterWith(LEAVES, node);
}
