/**
 * The consent grants in force, kept current with every publish, answering
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
import type { StoredRecord } from '../../../storage/contract/stored-record.js';
import { TH_CONSENT } from '../../../core/records/reserved-threads.js';
import { parseConsentRecord, type ConsentGrant } from './consent-grants.js';
import { HASH_LEVELS, type HashLevel } from './hash-levels.js';

export interface ConsentGrantView {
  readonly id: string;
  readonly sourceNamespace: string;
  readonly targetNamespace: string;
  readonly hashLevels: readonly HashLevel[];
  readonly threads: readonly string[];
  readonly purpose: string | null;
  readonly expiresAt: string | null;
}

function coversNamespace(grantSource: string, namespace: string): boolean {
  return grantSource === namespace || namespace.startsWith(`${grantSource}/`);
}

export class ConsentIndex {
  /** Live and expired grants by id, in sequence order (Map keeps insertion order). */
  private readonly grants = new Map<string, ConsentGrant>();
  private readonly revoked = new Set<string>();
  private readonly cache = new Map<string, { level: HashLevel | null; until: number }>();

  apply(stored: StoredRecord): void {
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
    let level: HashLevel | null = null;
    if (decisive) {
      level = HASH_LEVELS.find((l) => decisive.hashLevels.includes(l)) ?? 'L1';
      if (level === 'L0') {
        const reciprocal = live.some((g) => g.sourceNamespace === targetNamespace && coversNamespace(g.targetNamespace, sourceNamespace) && g.hashLevels.includes('L0'));
        if (!reciprocal) level = decisive.hashLevels.find((l) => l !== 'L0') ?? 'L1';
      }
    }
    // An answer holds until the next consent record, or until the first live grant expires.
    const nextExpiry = live.reduce((min, g) => (g.expiresAt !== null && g.expiresAt < min ? g.expiresAt : min), Number.POSITIVE_INFINITY);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { level, until: nextExpiry });
    return level;
  }

  list(now: number): ConsentGrantView[] {
    return this.live(now).map((g) => ({
      id: g.id,
      sourceNamespace: g.sourceNamespace,
      targetNamespace: g.targetNamespace,
      hashLevels: g.hashLevels,
      threads: g.threads,
      purpose: g.purpose,
      expiresAt: g.expiresAt === null ? null : new Date(g.expiresAt).toISOString(),
    }));
  }
}
