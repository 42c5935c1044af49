/**
 * A piece of SQL with its bind parameters, and the helpers shared by the
 * filter and sort compilers. Every value, JSON paths included, is a `?`;
 * only column names and fixed keywords are ever SQL text.
 */
import type { Scalar } from '../contract/query/filter-ast.js';
import type { BindValue } from './sqlite-database.js';
import { joinSqlWith, notSql, sqlFragment, type SqlFragment as SharedFragment, type SqlTruth } from '../contract/query/sql-filter.js';

export type SqlFragment = SharedFragment<BindValue>;

/** SQLite spells truth as 1 and 0. */
const TRUTH: SqlTruth = { TRUE: '1', FALSE: '0' };

export const TRUE: SqlFragment = { sql: TRUTH.TRUE, params: [] };
export const FALSE: SqlFragment = { sql: TRUTH.FALSE, params: [] };

export function sql(text: string, ...params: BindValue[]): SqlFragment {
  return sqlFragment(text, ...params);
}

/** `(a AND b …)` or `(a OR b …)`; the empty AND is true and the empty OR false, as in the reference. */
export function joinSql(parts: readonly SqlFragment[], operator: 'AND' | 'OR'): SqlFragment {
  return joinSqlWith(TRUTH, parts, operator);
}

export { notSql, TRUTH };

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** A SQLite JSON path with every key quoted, so `a-b` and `0` stay object keys. */
export function jsonPath(path: readonly string[]): string {
  for (const segment of path) {
    // The parser already restricts segments; this guards hand-built filters, since a quoted key cannot escape `"`.
    if (!SEGMENT.test(segment)) throw new TypeError(`body path segment "${segment}" must match [A-Za-z0-9_-]+`);
  }
  return '$' + path.map((segment) => `."${segment}"`).join('');
}

/** SQLite sees JSON booleans (json_extract gives 1 or 0) as integers. */
export function bindScalar(value: Scalar): BindValue {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

/**
 * SQLite's text→double conversion is off by one ulp for a few 16-17 digit
 * numbers (measured: 60 in 600k random doubles), and it reads integers above
 * 2^53 exactly where JS rounds them. Numbers are exact in SQL only when
 * SQLite stored them as an INTEGER (cast to REAL: one correct rounding, as JS
 * does); a REAL body member is trusted only when it is farther from the
 * number it is compared with than this band, which is thousands of ulps wide.
 */
export function uncertaintyBand(value: number): number {
  return Math.abs(value) * 2 ** -40 + 2 ** -1000;
}

/** A body member's number as JS reads it (integers above 2^53 rounded like JSON.parse). */
export const BODY_NUMBER = 'CAST(json_extract(body, ?) AS REAL)';

/** Two-valued: the member is a number SQLite may have read a few ulps off. */
export const BODY_NUMBER_INEXACT = `typeof(json_extract(body, ?)) = 'real'`;
