/**
 * Who a DID answers to (spec §5.4 rule 8): an alias holding a delegated grant
 * resolves through its chain to the principal at the root, so an agent a
 * member delegated to is that member when work is judged. Whoever counts
 * verdicts (trust, decisions) asks this instead of comparing DIDs, so an
 * alias cannot judge its own principal's work. Exposed by the plugin that
 * issues grants; without one, every DID is its own principal.
 */
import { token } from '../di/token.js';

export interface PrincipalResolver {
  principalOf(did: string): string;
}

export const PrincipalResolver = token<PrincipalResolver>('core.PrincipalResolver');

/** True when two DIDs resolve to the same principal: a verdict by one on the other's work is self-judgment. */
export function samePrincipal(resolver: PrincipalResolver | null, a: string, b: string): boolean {
  if (a === b) return true;
  return resolver !== null && resolver.principalOf(a) === resolver.principalOf(b);
}
