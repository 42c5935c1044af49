/**
 * What the SQL drivers share when compiling a filter: fragments of SQL with
 * their bind values, and the "sure / possible" algebra. A driver compiles
 * each leaf (compare, in, like, regex, exists) to a pair of predicates: rows
 * matching `sure` certainly match the filter, rows not matching `possible`
 * certainly do not, and the rows between are decided in JS by the reference
 * `matchesFilter`. AND and OR combine both sides; NOT swaps them. Only the
 * leaves and the spelling of true and false are the dialect's.
 */
import type { FilterNode } from './filter-ast.js';

export interface SqlFragment<P> {
  readonly sql: string;
  readonly params: readonly P[];
}

export interface FilterSql<P> {
  /** Rows matching this certainly match the filter. */
  readonly sure: SqlFragment<P>;
  /** Rows not matching this certainly do not match (a superset of `sure`). */
  readonly possible: SqlFragment<P>;
  /** `sure` and `possible` are the same predicate: SQL alone decides. */
  readonly exact: boolean;
}

/** A dialect's constants: how it spells an always-true and an always-false predicate. */
export interface SqlTruth {
  readonly TRUE: string;
  readonly FALSE: string;
}

export function sqlFragment<P>(text: string, ...params: P[]): SqlFragment<P> {
  return { sql: text, params };
}

/** `(a AND b …)` or `(a OR b …)`; the empty AND is true and the empty OR false, as in the reference. */
export function joinSqlWith<P>(truth: SqlTruth, parts: readonly SqlFragment<P>[], operator: 'AND' | 'OR'): SqlFragment<P> {
  if (parts.length === 0) return { sql: operator === 'AND' ? truth.TRUE : truth.FALSE, params: [] };
  if (parts.length === 1) return parts[0]!;
  return { sql: `(${parts.map((p) => p.sql).join(` ${operator} `)})`, params: parts.flatMap((p) => p.params) };
}

export function notSql<P>(part: SqlFragment<P>): SqlFragment<P> {
  return { sql: `(NOT ${part.sql})`, params: part.params };
}

export function exactFilter<P>(fragment: SqlFragment<P>): FilterSql<P> {
  return { sure: fragment, possible: fragment, exact: true };
}

/** The leaves a dialect compiles; the connectives are shared. */
export interface LeafCompilers<P> {
  readonly truth: SqlTruth;
  compare(node: FilterNode & { op: 'compare' }): FilterSql<P>;
  in(node: FilterNode & { op: 'in' }): FilterSql<P>;
  like(node: FilterNode & { op: 'like' }): FilterSql<P>;
  regex(node: FilterNode & { op: 'regex' }): FilterSql<P>;
  exists(node: FilterNode & { op: 'exists' }): FilterSql<P>;
}

export function combineFilters<P>(truth: SqlTruth, parts: readonly FilterSql<P>[], operator: 'AND' | 'OR'): FilterSql<P> {
  const sure = joinSqlWith(truth, parts.map((p) => p.sure), operator);
  if (parts.every((p) => p.exact)) return exactFilter(sure);
  return { sure, possible: joinSqlWith(truth, parts.map((p) => p.possible), operator), exact: false };
}

/** NOT of a compiled filter: an exact one negates; an inexact one swaps and negates its sides. */
export function negateFilter<P>(inner: FilterSql<P>): FilterSql<P> {
  if (inner.exact) return exactFilter(notSql(inner.sure));
  return { sure: notSql(inner.possible), possible: notSql(inner.sure), exact: false };
}

/** Compiles a filter tree with a dialect's leaves. */
export function compileFilterWith<P>(leaves: LeafCompilers<P>, node: FilterNode): FilterSql<P> {
  switch (node.op) {
    case 'and':
      return combineFilters(leaves.truth, node.nodes.map((child) => compileFilterWith(leaves, child)), 'AND');
    case 'or':
      return combineFilters(leaves.truth, node.nodes.map((child) => compileFilterWith(leaves, child)), 'OR');
    case 'not':
      return negateFilter(compileFilterWith(leaves, node.node));
    case 'compare':
      return leaves.compare(node);
    case 'in':
      return leaves.in(node);
    case 'like':
      return leaves.like(node);
    case 'regex':
      return leaves.regex(node);
    case 'exists':
      return leaves.exists(node);
  }
}
