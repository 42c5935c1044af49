/**
 * The parsed form of a structured query (spec §4.2). `parse-query.ts` builds
 * it from client JSON, `evaluate-filter.ts` defines its meaning, and drivers
 * either evaluate it or compile it (SQLite) to something with identical results.
 */

/** Top-level columns a filter may address. */
export const FILTER_COLUMNS = ['id', 'thread', 'actor', 'act', 'clock', 'data_type', 'judged_by', 'namespace', 'created_at', 'sequence'] as const;
export type FilterColumn = (typeof FILTER_COLUMNS)[number];

export const STRING_COLUMNS: ReadonlySet<FilterColumn> = new Set(['id', 'thread', 'actor', 'act', 'data_type', 'judged_by', 'namespace']);
export const NUMBER_COLUMNS: ReadonlySet<FilterColumn> = new Set(['clock', 'created_at', 'sequence']);

export type FieldRef =
  | { readonly kind: 'column'; readonly column: FilterColumn }
  /** `body.a.b` → path ['a', 'b']: object keys only, arrays are not traversed. */
  | { readonly kind: 'body'; readonly path: readonly string[] };

export type Scalar = string | number | boolean | null;

export type ComparisonOperator = '$eq' | '$gt' | '$gte' | '$lt' | '$lte';

export type FilterNode =
  | { readonly op: 'and'; readonly nodes: readonly FilterNode[] }
  | { readonly op: 'or'; readonly nodes: readonly FilterNode[] }
  | { readonly op: 'not'; readonly node: FilterNode }
  /** Present, same JSON type, and compares as asked. `$ne` parses to not($eq). */
  | { readonly op: 'compare'; readonly field: FieldRef; readonly operator: ComparisonOperator; readonly value: Scalar }
  /** Equal to one of the values. `$nin` parses to not($in). */
  | { readonly op: 'in'; readonly field: FieldRef; readonly values: readonly Scalar[] }
  /** SQL LIKE: `%` any run, `_` one character, `\` escapes; `$ilike` folds ASCII case only. */
  | { readonly op: 'like'; readonly field: FieldRef; readonly pattern: string; readonly caseInsensitive: boolean }
  /** ECMAScript regular expression with the `u` flag, run in linear time (linear-regex.ts: no backreferences or lookaround). */
  | { readonly op: 'regex'; readonly field: FieldRef; readonly source: string; readonly flags: string }
  /** The path is present (JSON null counts as present in bodies; for judged_by, present means non-null). */
  | { readonly op: 'exists'; readonly field: FieldRef; readonly exists: boolean };

export interface SortSpec {
  readonly field: FieldRef;
  readonly direction: 1 | -1;
}

export interface ParsedQuery {
  readonly filter: FilterNode;
  readonly sort: SortSpec | null;
  /** Already clamped to QUERY_MAX_LIMIT. */
  readonly limit: number;
  readonly offset: number;
  readonly explain: boolean;
}

export const QUERY_DEFAULT_LIMIT = 100;
export const QUERY_MAX_LIMIT = 1000;
export const QUERY_MAX_DEPTH = 10;
export const QUERY_MAX_NODES = 256;
export const QUERY_MAX_IN_VALUES = 1000;
export const QUERY_MAX_PATTERN_LENGTH = 1024;

export const MATCH_ALL: FilterNode = { op: 'and', nodes: [] };

export function fieldName(field: FieldRef): string {
  return field.kind === 'column' ? field.column : `body.${field.path.join('.')}`;
}

/** Every field a filter touches, for explain plans. */
export function fieldsOf(node: FilterNode, into: Set<string> = new Set()): Set<string> {
  switch (node.op) {
    case 'and':
    case 'or':
      node.nodes.forEach((child) => fieldsOf(child, into));
      break;
    case 'not':
      fieldsOf(node.node, into);
      break;
    default:
      into.add(fieldName(node.field));
  }
  return into;
}

export function containsRegex(node: FilterNode): boolean {
  switch (node.op) {
    case 'and':
    case 'or':
      return node.nodes.some(containsRegex);
    case 'not':
      return containsRegex(node.node);
    default:
      return node.op === 'regex';
  }
}
