/**
 * Combining read policies into the one restriction a read applies, and
 * reading back what it means for a whole thread: a restriction that names
 * only threads lets thread reads use the shared fold cache, while any other
 * (a namespace grain) makes them fold just the visible records.
 */
import type { FilterNode } from '../../storage/contract/query/filter-ast.js';
import type { Caller } from './caller.js';
import type { ReadPolicy } from './read-policy.js';

/** The AND of every policy's restriction for `caller`, or undefined when none restricts it. */
export function restrictionFor(policies: readonly ReadPolicy[], caller: Caller): FilterNode | undefined {
  const nodes: FilterNode[] = [];
  for (const policy of policies) {
    const node = policy.restrict(caller);
    if (node) nodes.push(node);
  }
  if (nodes.length === 0) return undefined;
  return nodes.length === 1 ? nodes[0]! : { op: 'and', nodes };
}

/**
 * What a restriction says about one thread: `all` (every record of the
 * thread is visible), `none` (no record is), or `some` (decided per record).
 */
export function threadVisibility(restriction: FilterNode | undefined, thread: string): 'all' | 'none' | 'some' {
  if (!restriction) return 'all';
  return visibility(restriction, thread);
}

function visibility(node: FilterNode, thread: string): 'all' | 'none' | 'some' {
  switch (node.op) {
    case 'and': {
      let result: 'all' | 'none' | 'some' = 'all';
      for (const child of node.nodes) {
        const v = visibility(child, thread);
        if (v === 'none') return 'none';
        if (v === 'some') result = 'some';
      }
      return result;
    }
    case 'or': {
      let result: 'all' | 'none' | 'some' = 'none';
      for (const child of node.nodes) {
        const v = visibility(child, thread);
        if (v === 'all') return 'all';
        if (v === 'some') result = 'some';
      }
      return result;
    }
    case 'not': {
      const v = visibility(node.node, thread);
      return v === 'all' ? 'none' : v === 'none' ? 'all' : 'some';
    }
    case 'compare':
      if (node.field.kind === 'column' && node.field.column === 'thread' && node.operator === '$eq') return node.value === thread ? 'all' : 'none';
      return 'some';
    case 'in':
      if (node.field.kind === 'column' && node.field.column === 'thread') return node.values.includes(thread) ? 'all' : 'none';
      return 'some';
    default:
      return 'some';
  }
}


/**
 * The finite set of threads a restriction confines reads to, or null when it
 * does not confine them to a list (a namespace grain, say). A thread-grained
 * caller's private fold recomputation reads just these threads.
 */
export function threadsOf(node: FilterNode): ReadonlySet<string> | null {
  switch (node.op) {
    case 'and': {
      const confined = node.nodes.map(threadsOf).filter((threads): threads is ReadonlySet<string> => threads !== null);
      if (confined.length === 0) return null;
      return new Set([...confined[0]!].filter((thread) => confined.every((threads) => threads.has(thread))));
    }
    case 'or': {
      const result = new Set<string>();
      for (const child of node.nodes) {
        const threads = threadsOf(child);
        if (threads === null) return null;
        for (const thread of threads) result.add(thread);
      }
      return result;
    }
    case 'compare':
      return node.field.kind === 'column' && node.field.column === 'thread' && node.operator === '$eq' && typeof node.value === 'string' ? new Set([node.value]) : null;
    case 'in':
      return node.field.kind === 'column' && node.field.column === 'thread' ? new Set(node.values.filter((v): v is string => typeof v === 'string')) : null;
    default:
      return null;
  }
}

/**
 * When a restriction only hides whole threads (every other record visible),
 * those threads; otherwise null. A coarse non-admin reader is hidden the
 * credentials thread only, which folds over coordination work never read.
 */
export function hiddenThreadsOnly(node: FilterNode): ReadonlySet<string> | null {
  switch (node.op) {
    case 'and': {
      const hidden = new Set<string>();
      for (const child of node.nodes) {
        const threads = hiddenThreadsOnly(child);
        if (threads === null) return null;
        for (const thread of threads) hidden.add(thread);
      }
      return hidden;
    }
    case 'not':
      return threadsOf(node.node);
    default:
      return null;
  }
}
