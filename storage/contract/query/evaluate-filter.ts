/**
 * The reference meaning of a filter, evaluated in memory. Drivers without a
 * query engine use it directly; the SQLite driver compiles filters to SQL and
 * the shared compliance suite checks both give identical results.
 *
 * Rules:
 * - a comparison matches only a present value of the operand's JSON type
 *   (numbers with numbers, strings with strings, booleans with booleans);
 * - `$ne`/`$nin` are the negation of `$eq`/`$in`, so a missing member matches them;
 * - `$like`, `$ilike`, `$regex` match strings only;
 * - body paths address object members; arrays are not traversed;
 * - `judged_by` is a string or null: `$eq: null` matches unjudged records, `$exists` means non-null.
 */
import type { StoredRecord } from '../stored-record.js';
import { namespaceOf } from '../stored-record.js';
import { compareStrings, sortKeyOf, compareSortKeys } from './compare-values.js';
import type { FieldRef, FilterNode, Scalar, SortSpec } from './filter-ast.js';
import { foldAsciiCase, likeMatcher } from './like-pattern.js';
import { compileLinearRegex, type LinearRegex } from './linear-regex.js';

const MISSING = Symbol('missing');
type Resolved = unknown | typeof MISSING;

export function resolveField(stored: StoredRecord, field: FieldRef): Resolved {
  const record = stored.record;
  if (field.kind === 'column') {
    switch (field.column) {
      case 'namespace':
        return namespaceOf(record);
      case 'created_at':
        return stored.createdAt;
      case 'sequence':
        return stored.sequence;
      case 'judged_by':
        // null is a value ("no judgment"): `$eq: null` matches it; `$exists` means non-null (see exists below).
        return record.judged_by;
      default:
        return record[field.column];
    }
  }
  let current: unknown = record.body;
  for (const segment of field.path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return MISSING;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return MISSING;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function scalarEquals(value: Resolved, operand: Scalar): boolean {
  if (value === MISSING) return false;
  if (operand === null) return value === null;
  return typeof value === typeof operand && value === operand;
}

function compareSameType(value: Resolved, operand: Scalar): number | null {
  if (value === MISSING || value === null || operand === null) return null;
  if (typeof value !== typeof operand) return null;
  if (typeof value === 'string') return compareStrings(value, operand as string);
  if (typeof value === 'number') return value - (operand as number);
  if (typeof value === 'boolean') return Number(value) - Number(operand as boolean);
  return null;
}

/** Compiled matchers are cached per node: filters are immutable. Both run in linear time (linear-regex.ts). */
const regexCache = new WeakMap<FilterNode, LinearRegex>();

function regexFor(node: FilterNode & { op: 'like' | 'regex' }): LinearRegex {
  let re = regexCache.get(node);
  if (!re) {
    re = node.op === 'like' ? likeMatcher(node.caseInsensitive ? foldAsciiCase(node.pattern) : node.pattern) : compileLinearRegex(node.source, node.flags);
    regexCache.set(node, re);
  }
  return re;
}

export function matchesFilter(stored: StoredRecord, node: FilterNode): boolean {
  switch (node.op) {
    case 'and':
      return node.nodes.every((child) => matchesFilter(stored, child));
    case 'or':
      return node.nodes.some((child) => matchesFilter(stored, child));
    case 'not':
      return !matchesFilter(stored, node.node);
    case 'compare': {
      const value = resolveField(stored, node.field);
      if (node.operator === '$eq') return scalarEquals(value, node.value);
      const order = compareSameType(value, node.value);
      if (order === null) return false;
      switch (node.operator) {
        case '$gt':
          return order > 0;
        case '$gte':
          return order >= 0;
        case '$lt':
          return order < 0;
        case '$lte':
          return order <= 0;
      }
      return false;
    }
    case 'in': {
      const value = resolveField(stored, node.field);
      return node.values.some((operand) => scalarEquals(value, operand));
    }
    case 'like': {
      const value = resolveField(stored, node.field);
      if (typeof value !== 'string') return false;
      return regexFor(node).test(node.caseInsensitive ? foldAsciiCase(value) : value);
    }
    case 'regex': {
      const value = resolveField(stored, node.field);
      if (typeof value !== 'string') return false;
      return regexFor(node).test(value);
    }
    case 'exists': {
      const value = resolveField(stored, node.field);
      const present = node.field.kind === 'column' && node.field.column === 'judged_by' ? value !== null : value !== MISSING;
      return present === node.exists;
    }
  }
}

/** Orders stored records by a sort spec, ties broken by ascending sequence; no spec means sequence order. */
export function compareForSort(sort: SortSpec | null): (a: StoredRecord, b: StoredRecord) => number {
  if (!sort) return (a, b) => a.sequence - b.sequence;
  return (a, b) => {
    const va = resolveField(a, sort.field);
    const vb = resolveField(b, sort.field);
    const order = compareSortKeys(sortKeyOf(va === MISSING ? undefined : va), sortKeyOf(vb === MISSING ? undefined : vb));
    return order !== 0 ? order * sort.direction : a.sequence - b.sequence;
  };
}
