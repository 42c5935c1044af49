/**
 * A piece of PostgreSQL with its bind values. Fragments are written with `?`
 * placeholders and numbered ($1, $2, …) once, when a statement is complete,
 * so they compose like the SQLite driver's; only column names and fixed
 * keywords are ever SQL text.
 */
import { joinSqlWith, notSql, sqlFragment, type SqlFragment as SharedFragment, type SqlTruth } from '../contract/query/sql-filter.js';

export type PgValue = string | number | boolean | null | readonly string[];

export type SqlFragment = SharedFragment<PgValue>;

export const TRUTH: SqlTruth = { TRUE: 'TRUE', FALSE: 'FALSE' };
export const TRUE: SqlFragment = { sql: TRUTH.TRUE, params: [] };
export const FALSE: SqlFragment = { sql: TRUTH.FALSE, params: [] };

export function sql(text: string, ...params: PgValue[]): SqlFragment {
  return sqlFragment(text, ...params);
}

export function joinSql(parts: readonly SqlFragment[], operator: 'AND' | 'OR'): SqlFragment {
  return joinSqlWith(TRUTH, parts, operator);
}

export { notSql };

/** Numbers the `?` placeholders: `?` never appears in SQL text here except as a placeholder (no ? operators are used). */
export function numbered(fragment: SqlFragment): { text: string; values: PgValue[] } {
  let n = 0;
  const text = fragment.sql.replace(/\?/g, () => `$${++n}`);
  if (n !== fragment.params.length) throw new Error(`statement has ${n} placeholders but ${fragment.params.length} values`);
  return { text, values: [...fragment.params] };
}

/**
 * Strings PostgreSQL cannot hold or would alter: U+0000 (text and jsonb refuse
 * it) and lone surrogates (the client would send U+FFFD instead). Such a value
 * is never bound; the rows it could concern are decided in JS.
 */
export function unbindable(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** A body path as a text[] for `#>`, refusing segments the parser never produces. */
export function pathArray(path: readonly string[]): readonly string[] {
  for (const segment of path) if (!SEGMENT.test(segment)) throw new TypeError(`body path segment "${segment}" must match [A-Za-z0-9_-]+`);
  return path;
}
