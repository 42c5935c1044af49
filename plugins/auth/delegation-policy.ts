/**
 * Whether a caller may hand part of its authority to someone it defines (a
 * member actor): not when its credential is parented to a grant that is no
 * longer in force, or whose max_depth caveat leaves no hop below it (spec
 * §5.4 rules 2, 3). Credentials under no grant (service accounts, the
 * operator) delegate within their own scopes.
 */
import type { Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import { grantOf } from './caller-claims.js';
import type { GrantGraph } from './grant-graph.js';

export interface DelegationPolicy {
  /** Why `caller` may not delegate, or null when it may. */
  refusal(caller: Caller): string | null;
}

export const DelegationPolicyToken = token<DelegationPolicy>('auth.DelegationPolicy');

export function delegationPolicy(graph: () => GrantGraph, now: () => number): DelegationPolicy {
  return {
    refusal(caller) {
      const id = grantOf(caller);
      if (id === null) return null;
      const standing = graph().standing(id, now());
      if (standing !== 'in_force') return `the credential's grant ${id} is ${standing.replace(/_/g, ' ')}`;
      const depthLeft = graph().get(id)!.effective.max_depth;
      if (depthLeft !== null && depthLeft < 1) return `the credential's grant ${id} allows no further delegation (max_depth 0 below it)`;
      return null;
    },
  };
}
