/**
 * How the LevelDB driver runs a structured query: which records to read (one
 * index, or the whole primary in sequence order) and the `explain` text for
 * it. The filter is always evaluated in full afterwards, so the choice only
 * narrows what is read, never what matches.
 */
import type { QueryPlan } from '../contract/record-store.js';
import { fieldName, fieldsOf, type FilterNode, type ParsedQuery } from '../contract/query/filter-ast.js';

/** Columns with an exact-match index, most selective first. */
const INDEXED_COLUMNS = ['id', 'thread', 'actor'] as const;
export type IndexedColumn = (typeof INDEXED_COLUMNS)[number];

export type ScanChoice = { readonly kind: 'index'; readonly column: IndexedColumn; readonly value: string } | { readonly kind: 'full' };

/** The conjuncts of a filter: nested ANDs flattened (a scope arrives as `and(scope, filter)`). */
function conjunctsOf(node: FilterNode, into: FilterNode[] = []): FilterNode[] {
  if (node.op === 'and') node.nodes.forEach((child) => conjunctsOf(child, into));
  else into.push(node);
  return into;
}

/**
 * Picks an index when some conjunct is `column $eq "string"` on an indexed
 * column: every match must then carry that value, so the index holds them all.
 */
export function chooseScan(filter: FilterNode): ScanChoice {
  const conjuncts = conjunctsOf(filter);
  for (const column of INDEXED_COLUMNS) {
    for (const node of conjuncts) {
      if (node.op !== 'compare' || node.operator !== '$eq') continue;
      if (node.field.kind !== 'column' || node.field.column !== column) continue;
      if (typeof node.value === 'string') return { kind: 'index', column, value: node.value };
    }
  }
  return { kind: 'full' };
}

function isMatchAll(filter: FilterNode): boolean {
  return conjunctsOf(filter).length === 0;
}

/** The `explain` answer: a one-line description of the scan, no SQL, no binds. */
export function describePlan(choice: ScanChoice, query: ParsedQuery): QueryPlan {
  const source = choice.kind === 'index' ? `index ${choice.column} = ${JSON.stringify(choice.value)}` : 'full scan of records by sequence';
  const steps = [source];
  if (!isMatchAll(query.filter)) steps.push('filter');
  if (query.sort) steps.push(`sort by ${fieldName(query.sort.field)} ${query.sort.direction === 1 ? 'asc' : 'desc'}`);
  steps.push(`offset ${query.offset} limit ${query.limit}`);

  const indexed = choice.kind === 'index' ? [choice.column] : [];
  const referenced = fieldsOf(query.filter);
  if (query.sort) referenced.add(fieldName(query.sort.field));
  const unindexed = [...referenced].filter((field) => !(indexed as string[]).includes(field));
  return { sql: steps.join(' then '), bind_count: 0, indexed_fields: indexed, unindexed_fields: unindexed };
}
