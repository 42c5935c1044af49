/** Invite presets (spec §5.2) and what a service account gets when its creator names no scopes or actors. */
import { isAdmin, parseGrain, type Scope } from '../../core/access/scopes.js';

export const SCOPE_PRESETS: Readonly<Record<'reader' | 'contributor' | 'admin', readonly Scope[]>> = {
  reader: ['records:read'],
  contributor: ['records:read', 'records:write'],
  admin: ['admin'],
};

/** Scopes of an account created without `scopes`: the contributor preset. */
export const DEFAULT_SCOPES: readonly string[] = SCOPE_PRESETS.contributor;

/** Allowed actors of an account created without `actors`: any DID for an admin, none but its own otherwise. */
export function defaultActors(scopes: readonly string[]): string[] {
  return isAdmin(scopes) ? ['*'] : [];
}

/**
 * An account bound to a namespace other than the default one holds its
 * record scopes only within that namespace: `records:*` become namespace
 * grains, grains must lie inside it, and instance-wide scopes are refused
 * (so bootstrapping a fresh namespace never mints an instance admin).
 * Returns the scopes to snapshot, or a message saying what is refused.
 */
export function scopesWithinNamespace(scopes: readonly string[], namespace: string): string[] | string {
  if (namespace === 'default') return [...scopes];
  const out: string[] = [];
  for (const scope of scopes) {
    if (scope === 'records:read') out.push(`namespace:${namespace}:read`);
    else if (scope === 'records:write') out.push(`namespace:${namespace}:write`);
    else {
      const grain = parseGrain(scope);
      if (grain?.kind === 'namespace' && (grain.resource === namespace || grain.resource.startsWith(`${namespace}/`))) out.push(scope);
      else return `scope ${scope} reaches beyond namespace ${namespace}; an account of a namespace holds records scopes and grains within it only`;
    }
  }
  return out;
}
