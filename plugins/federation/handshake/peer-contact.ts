/**
 * What this side learns when the peer of a federation pair reads it with the
 * token minted for it (the changes feed, records by id):
 * - a paused pair serves nothing: PAIR_PAUSED (409), until it is resumed;
 * - contact resets this side's backoff: a pair whose pulls of the peer are
 *   failing retries at once (the peer is evidently up again), so a pair
 *   recovers within one round trip of the peer's return rather than after a
 *   backoff (the prior art's "any inbound contact resets backoff");
 * - the first use of a renewed token retires the one it replaced (its
 *   account is revoked and `token_retired` recorded).
 * Accounts that belong to no federation pair (a hand-made sync pair's
 * bearer, a person) pass untouched.
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import type { PairRunners } from '../pair-runners.js';
import type { FederationPair } from './federation-pair-records.js';
import type { HandshakeDeps } from './handshake-deps.js';
import { LIFECYCLE_KIND } from './pair-lifecycle-records.js';

/** Kicks at most this often per pair, however often the peer calls. */
const KICK_EVERY_MS = 1_000;

export class PeerContact {
  private readonly kickedAt = new Map<string, number>();
  private readonly retiring = new Set<string>();
  // ---- relay mailbox (issue 35): when and from where each account last read the feed, so the relay sender knows a silent peer ----
  private readonly reads = new Map<string, { at: number; since: string; target_namespace: string; thread: string | null }>();

  noteRead(accountId: string | null, read: { since: string; target_namespace: string; thread: string | null }): void {
    if (accountId !== null) this.reads.set(accountId, { ...read, at: this.deps.now() });
  }

  lastRead(accountId: string): { at: number; since: string; target_namespace: string; thread: string | null } | undefined {
    return this.reads.get(accountId);
  }
  // ---- end relay mailbox ----

  constructor(
    private readonly deps: Pick<HandshakeDeps, 'log' | 'credentials' | 'logger' | 'now'>,
    private readonly runners: Pick<PairRunners, 'runner'>,
  ) {}

  private pairOf(accountId: string): FederationPair | undefined {
    return this.deps.log.all().find((p) => p.state !== 'revoked' && (p.issued?.service_account_id === accountId || p.previous_issued?.service_account_id === accountId));
  }

  /** Called with the service account of every bearer reading the sync routes; throws PAIR_PAUSED for a paused pair's peer. */
  seen(accountId: string | null): void {
    if (accountId === null) return;
    const pair = this.pairOf(accountId);
    if (!pair) return;
    if (pair.state === 'paused') throw new LoomError('PAIR_PAUSED', `federation pair ${pair.pair_id} is paused on this instance; it serves nothing until its operator resumes it`);
    if (pair.state === 'establishing') return;
    const runner = this.runners.runner(pair.sync_pair_id);
    const now = this.deps.now();
    if (runner && runner.retries > 0 && now - (this.kickedAt.get(pair.pair_id) ?? 0) >= KICK_EVERY_MS) {
      this.kickedAt.set(pair.pair_id, now);
      runner.kick();
    }
    if (pair.previous_issued && pair.issued?.service_account_id === accountId) this.retire(pair.pair_id);
  }

  private retire(pairId: string): void {
    if (this.retiring.has(pairId)) return;
    this.retiring.add(pairId);
    const { log, credentials, logger } = this.deps;
    void log
      .exclusive(async () => {
        const pair = log.find(pairId);
        const old = pair?.previous_issued;
        if (!pair || !old || pair.state === 'revoked') return;
        await credentials()?.revoke(old.service_account_id, `federation pair ${pairId}: replaced by a renewed token the peer now uses`);
        await log.write({ kind: LIFECYCLE_KIND, step: 'token_retired', pair_id: pairId, service_account_id: old.service_account_id });
      })
      .catch((error: unknown) => logger.log('error', 'federation pair: retiring the replaced token failed', { pair_id: pairId, error: String(error) }))
      .finally(() => this.retiring.delete(pairId));
  }
}
