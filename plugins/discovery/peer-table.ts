/**
 * The peers the mDNS listener has seen, keyed by service instance name
 * (`<name>._loom._tcp.local`). Pure: the clock is injected, the network is
 * the listener's. An entry lives until `last_seen + ttl` or a goodbye (TTL 0);
 * it is `verified` only while the manifest checked for exactly its advertised
 * DID and endpoint verified. Discovery never creates a pair: this table is
 * the whole of what it does.
 */
import type { Advertisement } from './txt-record.js';

export interface Sighting extends Advertisement {
  readonly fqdn: string;
  /** The instance label (`<name>` of the fqdn). */
  readonly instance: string;
  readonly addresses: readonly string[];
  readonly ttlSeconds: number;
}

export type VerificationState = 'pending' | 'checking' | 'verified' | 'failed';

interface Entry extends Sighting {
  lastSeen: number;
  expiresAt: number;
  state: VerificationState;
  reason: string | null;
  checkedAt: number | null;
  /** When a verified manifest's signature expires: then it is checked again. */
  manifestExpiresAt: number | null;
}

export interface PeerView {
  readonly object: 'mdns_peer';
  readonly instance: string;
  readonly fqdn: string;
  readonly did: string | null;
  readonly endpoint: string | null;
  readonly namespace: string | null;
  readonly handle: string | null;
  readonly capabilities: readonly string[];
  readonly addresses: readonly string[];
  readonly last_seen: string;
  readonly expires_at: string;
  readonly ttl_seconds: number;
  readonly verified: boolean;
  readonly verification: { readonly state: VerificationState; readonly reason: string | null; readonly checked_at: string | null };
}

/** A check to run: the DID and endpoint it is for (a result for other ones is dropped). */
export interface DueCheck {
  readonly fqdn: string;
  readonly did: string;
  readonly endpoint: string;
}

export class PeerTable {
  private readonly entries = new Map<string, Entry>();
  dropped = 0;

  constructor(
    private readonly now: () => number,
    private readonly limits: { readonly maxPeers: number; readonly reverifyMs: number },
  ) {}

  /** An announcement or answer: adds the peer, or refreshes it; a changed DID or endpoint starts verification over. */
  see(sighting: Sighting): void {
    const now = this.now();
    const old = this.entries.get(sighting.fqdn);
    if (!old && this.entries.size >= this.limits.maxPeers) {
      this.dropped++;
      return;
    }
    const same = old !== undefined && old.did === sighting.did && old.endpoint === sighting.endpoint;
    const incomplete = sighting.did === null || sighting.endpoint === null;
    this.entries.set(sighting.fqdn, {
      ...sighting,
      lastSeen: now,
      expiresAt: now + sighting.ttlSeconds * 1000,
      state: same ? old.state : incomplete ? 'failed' : 'pending',
      reason: same ? old.reason : incomplete ? 'txt_incomplete' : null,
      checkedAt: same ? old.checkedAt : null,
      manifestExpiresAt: same ? old.manifestExpiresAt : null,
    });
  }

  /** The same records announced again: the entry lives another TTL. */
  refresh(fqdn: string, ttlSeconds: number): void {
    const entry = this.entries.get(fqdn);
    if (!entry) return;
    const now = this.now();
    entry.lastSeen = now;
    entry.expiresAt = now + ttlSeconds * 1000;
  }

  /** A goodbye (TTL 0): gone at once. */
  goodbye(fqdn: string): boolean {
    return this.entries.delete(fqdn);
  }

  /** Removes the entries whose TTL ran out; their names. */
  expire(): string[] {
    const now = this.now();
    const gone: string[] = [];
    for (const [fqdn, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.entries.delete(fqdn);
        gone.push(fqdn);
      }
    }
    return gone;
  }

  has(fqdn: string): boolean {
    return this.entries.has(fqdn);
  }

  /** Entries to check now, marked `checking`: new ones, failed ones after `reverifyMs`, verified ones whose manifest expired. */
  takeDue(): DueCheck[] {
    const now = this.now();
    const due: DueCheck[] = [];
    for (const entry of this.entries.values()) {
      if (entry.did === null || entry.endpoint === null) continue;
      const retry = entry.state === 'failed' && entry.checkedAt !== null && now - entry.checkedAt >= this.limits.reverifyMs;
      const lapsed = entry.state === 'verified' && entry.manifestExpiresAt !== null && entry.manifestExpiresAt <= now;
      if (entry.state === 'pending' || retry || lapsed) {
        entry.state = 'checking';
        due.push({ fqdn: entry.fqdn, did: entry.did, endpoint: entry.endpoint });
      }
    }
    return due;
  }

  /** The outcome of a check, applied only if the entry still advertises what was checked. */
  settle(check: DueCheck, outcome: { ok: true; manifestExpiresAt: number } | { ok: false; reason: string }): void {
    const entry = this.entries.get(check.fqdn);
    if (!entry || entry.did !== check.did || entry.endpoint !== check.endpoint || entry.state !== 'checking') return;
    entry.checkedAt = this.now();
    if (outcome.ok) {
      entry.state = 'verified';
      entry.reason = null;
      entry.manifestExpiresAt = outcome.manifestExpiresAt;
    } else {
      entry.state = 'failed';
      entry.reason = outcome.reason;
      entry.manifestExpiresAt = null;
    }
  }

  /** A check that could not start now goes back to pending. */
  requeue(check: DueCheck): void {
    const entry = this.entries.get(check.fqdn);
    if (entry?.state === 'checking') entry.state = 'pending';
  }

  /** The live entries (TTL not run out), by instance name. */
  list(): PeerView[] {
    const now = this.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    return [...this.entries.values()]
      .filter((entry) => entry.expiresAt > now)
      .sort((a, b) => (a.fqdn < b.fqdn ? -1 : a.fqdn > b.fqdn ? 1 : 0))
      .map((entry) => ({
        object: 'mdns_peer' as const,
        instance: entry.instance,
        fqdn: entry.fqdn,
        did: entry.did,
        endpoint: entry.endpoint,
        namespace: entry.namespace,
        handle: entry.handle,
        capabilities: [...entry.capabilities],
        addresses: [...entry.addresses],
        last_seen: iso(entry.lastSeen),
        expires_at: iso(entry.expiresAt),
        ttl_seconds: Math.round((entry.expiresAt - entry.lastSeen) / 1000),
        verified: entry.state === 'verified',
        verification: { state: entry.state, reason: entry.reason, checked_at: entry.checkedAt === null ? null : iso(entry.checkedAt) },
      }));
  }
}
