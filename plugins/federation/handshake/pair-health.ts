/**
 * `degraded` (spec §3; the rule is the prior art's, made countable): an
 * active pair becomes degraded, with `last_error`, when this side's pulls of
 * the peer fail `failingAfterErrors` times in a row (default 3), at once when
 * the peer refuses this side's token (401: PEER_REFUSED_TOKEN), or when the
 * token the peer minted for this side has expired (TOKEN_EXPIRED). The next
 * successful pull records `recovered` and the pair is active again. The
 * runner never stops retrying: its backoff is capped at the poll interval,
 * and the pair view shows the next retry time. Records are written on a
 * change of state only, never per failure, so an outage of days writes two.
 * It hears the runners (PairRunner `observe`), so it acts on the server that
 * runs the pairs (the leader).
 */
import type { PairFailure } from './federation-pair-records.js';
import type { HandshakeDeps } from './handshake-deps.js';
import { LIFECYCLE_KIND } from './pair-lifecycle-records.js';
import type { PullOutcome } from '../pair-runner.js';

type Wanted = { readonly step: 'degraded'; readonly error: PairFailure; readonly next_retry_at: string } | { readonly step: 'recovered' };

export class PairHealth {
  /** The latest step wanted per federation pair, written by one worker per pair. */
  private readonly wanted = new Map<string, Wanted>();
  private readonly working = new Set<string>();

  constructor(private readonly deps: Pick<HandshakeDeps, 'log' | 'logger' | 'now' | 'options'>) {}

  /** A pull's outcome on a sync pair (PairRunner `observe`); most are no change. */
  observe(syncPairId: string, outcome: PullOutcome): void {
    const pair = this.deps.log.all().find((p) => p.sync_pair_id === syncPairId && p.state !== 'revoked');
    if (!pair) return;
    if (outcome.ok) {
      if (pair.state === 'degraded' || this.wanted.has(pair.pair_id)) this.want(pair.pair_id, { step: 'recovered' });
      return;
    }
    if (pair.state !== 'active' && !(pair.state === 'degraded' && this.wanted.get(pair.pair_id)?.step === 'recovered')) return;
    const error = this.degradation(pair.held_token_expires_at, outcome);
    if (error) this.want(pair.pair_id, { step: 'degraded', error, next_retry_at: new Date(outcome.nextAttemptAt).toISOString() });
  }

  /** Why the pair is degraded now, or null while failures are still few. */
  private degradation(heldExpiresAt: string | null, outcome: Extract<PullOutcome, { ok: false }>): PairFailure | null {
    const now = this.deps.now();
    const at = new Date(now).toISOString();
    if (heldExpiresAt !== null && Date.parse(heldExpiresAt) <= now) return { code: 'TOKEN_EXPIRED', message: `the token the peer minted for this side expired at ${heldExpiresAt}; it was not renewed in time`, at };
    if (outcome.error.status === 401) return { code: 'PEER_REFUSED_TOKEN', message: outcome.error.message, at };
    if (outcome.retries >= this.deps.options.failingAfterErrors) return { code: outcome.error.code, message: outcome.error.message, at };
    return null;
  }

  private want(pairId: string, step: Wanted): void {
    this.wanted.set(pairId, step);
    if (this.working.has(pairId)) return;
    this.working.add(pairId);
    void this.work(pairId).finally(() => this.working.delete(pairId));
  }

  private async work(pairId: string): Promise<void> {
    const { log, logger } = this.deps;
    for (let step = this.wanted.get(pairId); step; step = this.wanted.get(pairId)) {
      this.wanted.delete(pairId);
      try {
        await log.exclusive(async () => {
          const pair = log.find(pairId);
          if (!pair) return;
          if (step.step === 'degraded' && pair.state === 'active') {
            await log.write({ kind: LIFECYCLE_KIND, step: 'degraded', pair_id: pairId, error: { ...step.error }, next_retry_at: step.next_retry_at });
            logger.log('warn', 'federation pair degraded', { pair_id: pairId, code: step.error.code, next_retry_at: step.next_retry_at });
          } else if (step.step === 'recovered' && pair.state === 'degraded') {
            await log.write({ kind: LIFECYCLE_KIND, step: 'recovered', pair_id: pairId });
            logger.log('info', 'federation pair recovered', { pair_id: pairId });
          }
        });
      } catch (error) {
        logger.log('error', 'federation pair: recording its health failed', { pair_id: pairId, error: String(error) });
      }
    }
  }
}
