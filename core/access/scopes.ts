/**
 * Scopes (spec §5.2, a closed enum) and wire grains (§5.3). A route declares
 * one coarse scope; `covers` is the coarse gate every credential passes
 * first. A grain (`thread:<id>:read`, `namespace:<ns>:write`, …) passes the
 * coarse gate of its route class, and the per-resource half of it is applied
 * by the read policy and the ingest gates of the plugin that issued it.
 */
export const SCOPES = [
  'records:read',
  'records:write',
  'threads:write',
  'federation:manage',
  // What a peer's token needs (spec §5 rule 7): pull the changes feed and fetch or push records; stream it continuously.
  'federation:sync',
  'federation:subscribe',
  'config:read',
  'config:write',
  'admin',
] as const;
export type Scope = (typeof SCOPES)[number];

/** `admin` covers every scope. */
export const ALL_SCOPES_GRANT: Scope = 'admin';

export type GrainKind = 'thread' | 'namespace';
export type GrainAccess = 'read' | 'write';

export interface Grain {
  readonly kind: GrainKind;
  /** The thread id or namespace id. */
  readonly resource: string;
  readonly access: GrainAccess;
}

const GRAIN = /^(thread|namespace):([^:\s]{1,256}):(read|write)$/;

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}

/** The grain a scope string names, or null when it is not a grain. */
export function parseGrain(scope: string): Grain | null {
  const match = GRAIN.exec(scope);
  return match ? { kind: match[1] as GrainKind, resource: match[2]!, access: match[3] as GrainAccess } : null;
}

/** A scope or a well-formed grain (what a credential may carry). */
export function isScopeOrGrain(value: unknown): value is string {
  return isScope(value) || (typeof value === 'string' && parseGrain(value) !== null);
}

export function isAdmin(scopes: readonly string[]): boolean {
  return scopes.includes(ALL_SCOPES_GRANT);
}

/** Scopes a held scope implies besides itself: `federation:manage` covers all of /v1/sync/* (spec §5.2). */
const IMPLIED: Readonly<Partial<Record<Scope, readonly Scope[]>>> = {
  'federation:sync': ['federation:manage'],
  'federation:subscribe': ['federation:manage'],
};

/**
 * The coarse gate: the exact scope, `admin`, a scope that implies it, or a
 * grain of the route class (`…:read` grains pass `records:read`, `…:write`
 * grains pass `records:write`).
 */
export function covers(scopes: readonly string[], required: Scope): boolean {
  if (scopes.includes(required) || scopes.includes(ALL_SCOPES_GRANT)) return true;
  if (IMPLIED[required]?.some((wider) => scopes.includes(wider))) return true;
  if (required !== 'records:read' && required !== 'records:write') return false;
  const access: GrainAccess = required === 'records:read' ? 'read' : 'write';
  return scopes.some((scope) => parseGrain(scope)?.access === access);
}

/** The grains of one access, or null when a coarse scope (or admin) makes the caller unrestricted for it. */
export function grainsFor(scopes: readonly string[], access: GrainAccess): Grain[] | null {
  const coarse: Scope = access === 'read' ? 'records:read' : 'records:write';
  if (scopes.includes(coarse) || scopes.includes(ALL_SCOPES_GRANT)) return null;
  return scopes.map(parseGrain).filter((grain): grain is Grain => grain !== null && grain.access === access);
}

/**
 * Whether `scope` grants nothing beyond `held` (attenuation, spec §5.4 rule 1):
 * the same scope, anything under `admin`, a grain under the coarse scope of
 * its access, or a namespace grain inside a held namespace grain of the same
 * access (`namespace:acme/eu:read` within `namespace:acme:read`).
 */
export function scopeWithin(scope: string, held: readonly string[]): boolean {
  if (held.includes(scope) || held.includes(ALL_SCOPES_GRANT)) return true;
  if (isScope(scope) && IMPLIED[scope]?.some((wider) => held.includes(wider))) return true;
  const grain = parseGrain(scope);
  if (!grain) return false;
  if (held.includes(grain.access === 'read' ? 'records:read' : 'records:write')) return true;
  if (grain.kind !== 'namespace') return false;
  return held.some((other) => {
    const outer = parseGrain(other);
    return outer !== null && outer.kind === 'namespace' && outer.access === grain.access && grain.resource.startsWith(`${outer.resource}/`);
  });
}

/** Whether every scope of `scopes` is within `held`. */
export function scopesWithin(scopes: readonly string[], held: readonly string[]): boolean {
  return scopes.every((scope) => scopeWithin(scope, held));
}
