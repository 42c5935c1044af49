/**
 * Read visibility: one restriction, derived from the caller, that every read
 * surface applies (core/engine/record-reader.ts). Plugins contribute policies
 * with `scope.readPolicy`; their restrictions are AND-combined. A policy
 * returns undefined when it does not restrict this caller, so unrestricted
 * callers pay nothing. The restriction is a FilterNode because that one type
 * already has both meanings reads need: compiled into SQL by drivers (query
 * totals stay disclosure-aware) and evaluated in memory (pages, feeds).
 */
import type { FilterNode } from '../../storage/contract/query/filter-ast.js';
import type { Caller } from './caller.js';

export interface ReadPolicy {
  /** `<plugin>.<policy>`, unique. */
  readonly name: string;
  /** The records `caller` may see, or undefined when this policy does not restrict the caller. */
  restrict(caller: Caller): FilterNode | undefined;
}

/** Matches no record: what a caller with no read grant at all may see. */
export const MATCH_NONE: FilterNode = { op: 'or', nodes: [] };
