/**
 * The auth plugin's read policies:
 * - read-grains: a credential holding read grains and no coarse read scope
 *   sees only the threads and namespaces they name (§5.3); one holding
 *   neither sees nothing.
 * - sealed-credentials: the credentials thread is visible to admins only.
 * Restrictions are built once per caller object (callers are cached per token).
 */
import type { Caller } from '../../core/access/caller.js';
import type { ReadPolicy } from '../../core/access/read-policy.js';
import { MATCH_NONE } from '../../core/access/read-policy.js';
import { grainsFor, isAdmin } from '../../core/access/scopes.js';
import type { FilterNode } from '../../storage/contract/query/filter-ast.js';
import { AUTH_THREAD } from './auth-thread.js';

const THREAD = { kind: 'column', column: 'thread' } as const;
const NAMESPACE = { kind: 'column', column: 'namespace' } as const;

/** `_`, `%` and `\` are LIKE metacharacters; namespace ids may contain `_`. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function grainFilter(caller: Caller): FilterNode | undefined {
  const grains = grainsFor(caller.scopes, 'read');
  if (grains === null) return undefined;
  if (grains.length === 0) return MATCH_NONE;
  const threads = grains.filter((g) => g.kind === 'thread').map((g) => g.resource);
  const nodes: FilterNode[] = [];
  if (threads.length > 0) nodes.push({ op: 'in', field: THREAD, values: threads });
  for (const grain of grains) {
    if (grain.kind !== 'namespace') continue;
    nodes.push({ op: 'compare', field: NAMESPACE, operator: '$eq', value: grain.resource });
    nodes.push({ op: 'like', field: NAMESPACE, pattern: `${likeLiteral(grain.resource)}/%`, caseInsensitive: false });
  }
  return nodes.length === 1 ? nodes[0] : { op: 'or', nodes };
}

function cachedPolicy(name: string, derive: (caller: Caller) => FilterNode | undefined): ReadPolicy {
  const cache = new WeakMap<Caller, { node: FilterNode | undefined }>();
  return {
    name,
    restrict(caller) {
      let hit = cache.get(caller);
      if (!hit) cache.set(caller, (hit = { node: derive(caller) }));
      return hit.node;
    },
  };
}

export const readGrainsPolicy = cachedPolicy('auth.read-grains', (caller) => (caller.kind === 'credential' ? grainFilter(caller) : undefined));

const SEALED: FilterNode = { op: 'not', node: { op: 'compare', field: THREAD, operator: '$eq', value: AUTH_THREAD } };

export const sealedCredentialsPolicy = cachedPolicy('auth.sealed-credentials', (caller) => (isAdmin(caller.scopes) ? undefined : SEALED));

export const AUTH_READ_POLICIES: readonly ReadPolicy[] = [readGrainsPolicy, sealedCredentialsPolicy];
