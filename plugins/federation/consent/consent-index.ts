/**
 * The consent grants in force (the state of consentFold, kept current with every publish), answering
 * "at which level may a record of namespace S on thread T cross into
 * namespace T?" for every record the changes feed serves (so answers are
 * cached per (source, target, thread) until the next consent record):
 * - same namespace: L0 (nothing crosses a boundary);
 * - else the most recent live grant (not revoked, not expired) whose source
 *   is the namespace or an ancestor, whose target is exactly the target,
 *   and whose threads include the thread or `*`, decides: its strongest level;
 * - L0 across a boundary needs two-sided consent: a live reciprocal grant
 *   (target → the namespace or an ancestor) listing L0 too; else L1;
 * - no grant: null (withheld).
 */
import type { LoomRecord } from '../../../core/records/record.js';
import { TH_CONSENT } from '../../../core/records/reserved-threads.js';
import { parseConsentRecord, type ConsentGrant } from './consent-grants.js';
import { HASH_LEVELS, type HashLevel } from './hash-levels.js';

function coversNamespace(grantSource: string, namespace: string): boolean {
  return grantSource === namespace || namespace.startsWith(`${grantSource}/`);
}

/** A live grant as GET /v1/sync/consent shows it. */
export interface ConsentGrantState {
  readonly object: 'consent_grant';
  readonly id: string;
  readonly source_namespace: string;
  readonly target_namespace: string;
  readonly hash_levels: readonly HashLevel[];
  readonly threads: readonly string[];
  readonly purpose: string | null;
  readonly expires_at: string | null;
  readonly served_level: HashLevel;
  readonly two_sided: boolean;
}

export class ConsentIndex {
  /** Live and expired grants by id, in sequence order (Map keeps insertion order). */
  private readonly grants = new Map<string, ConsentGrant>();
  private readonly revoked = new Set<string>();
  private readonly cache = new Map<string, { level: HashLevel | null; until: number }>();

  /** Grants held (live or expired, not revoked). */
  get size(): number {
    return this.grants.size;
  }

  apply(stored: { readonly record: LoomRecord }): void {
    if (stored.record.thread !== TH_CONSENT) return;
    const parsed = parseConsentRecord(stored.record);
    if (!parsed) return;
    if (parsed.type === 'grant') {
      if (!this.revoked.has(parsed.id)) this.grants.set(parsed.id, parsed);
    } else {
      this.revoked.add(parsed.grant);
      this.grants.delete(parsed.grant);
    }
    this.cache.clear();
  }

  private live(now: number): ConsentGrant[] {
    return [...this.grants.values()].filter((g) => g.expiresAt === null || g.expiresAt > now);
  }

  levelFor(sourceNamespace: string, targetNamespace: string, thread: string, now: number): HashLevel | null {
    if (sourceNamespace === targetNamespace) return 'L0';
    const key = `${sourceNamespace}\u0000${targetNamespace}\u0000${thread}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > now) return hit.level;
    const live = this.live(now);
    let decisive: ConsentGrant | null = null;
    for (const grant of live) {
      if (grant.targetNamespace !== targetNamespace || !coversNamespace(grant.sourceNamespace, sourceNamespace)) continue;
      if (!grant.threads.includes('*') && !grant.threads.includes(thread)) continue;
      decisive = grant; // later in the map = more recent
    }
    const level = decisive ? this.servedLevel(decisive, live, sourceNamespace) : null;
    // An answer holds until the next consent record, or until the first live grant expires.
    const nextExpiry = live.reduce((min, g) => (g.expiresAt !== null && g.expiresAt < min ? g.expiresAt : min), Number.POSITIVE_INFINITY);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { level, until: nextExpiry });
    return level;
  }

  /** A reciprocal live grant (the target back to `namespace` or an ancestor of it) that lists L0 too. */
  private twoSided(grant: ConsentGrant, live: readonly ConsentGrant[], namespace: string): boolean {
    return live.some((g) => g.sourceNamespace === grant.targetNamespace && coversNamespace(g.targetNamespace, namespace) && g.hashLevels.includes('L0'));
  }

  /** The strongest level a grant lets records of `namespace` cross at: L0 only two-sided, else the strongest it lists below L0 (L1 when none). */
  private servedLevel(grant: ConsentGrant, live: readonly ConsentGrant[], namespace: string): HashLevel {
    const strongest = HASH_LEVELS.find((l) => grant.hashLevels.includes(l)) ?? 'L1';
    if (strongest !== 'L0' || this.twoSided(grant, live, namespace)) return strongest;
    return grant.hashLevels.find((l) => l !== 'L0') ?? 'L1';
  }

  /** Every live grant, oldest first, with the level it is served at. */
  inForce(now: number): ConsentGrantState[] {
    const live = this.live(now);
    return live.map((g) => ({
      object: 'consent_grant' as const,
      id: g.id,
      source_namespace: g.sourceNamespace,
      target_namespace: g.targetNamespace,
      hash_levels: g.hashLevels,
      threads: g.threads,
      purpose: g.purpose,
      expires_at: g.expiresAt === null ? null : new Date(g.expiresAt).toISOString(),
      served_level: this.servedLevel(g, live, g.sourceNamespace),
      two_sided: g.hashLevels.includes('L0') && this.twoSided(g, live, g.sourceNamespace),
    }));
  }
}
