/**
 * The initiator's refresh of pairs still `establishing` (the peer waits for
 * its operator's approval): a signed poll every `handshakePollMs` until the
 * peer answers `active` (then the pair starts) or `revoked`. A poll that
 * fails waits twice as long before the next (up to 5 minutes), and is
 * logged once per streak, not per try. A request nobody approved within
 * `pendingPairTtlMs` (default 7 days) is revoked on either side with reason
 * `expired`, and the initiator tells the responder: nothing polls forever.
 * Run by the kernel's IntervalLoop as a singleton, like the pair runners: on
 * a shared log only the leader polls. It follows the peer over the network,
 * not the log, so it is a loop and not a log consumer.
 */
import type { Logger } from '../../../core/plugin/logger.js';
import type { PairInitiator } from './pair-initiator.js';
import type { PairLog } from './pair-log.js';
import type { PairRevoker } from './pair-revoker.js';

const MAX_POLL_WAIT_MS = 5 * 60_000;

export interface RefresherSettings {
  readonly intervalMs: number;
  /** An establishing pair older than this is revoked (expired). */
  readonly pendingTtlMs: number;
  readonly now: () => number;
}

export class HandshakeRefresher {
  /** Failed polls in a row per pair, and when the next may run. */
  private readonly backoff = new Map<string, { failures: number; nextAt: number }>();

  constructor(
    private readonly log: PairLog,
    private readonly initiator: PairInitiator,
    private readonly revoker: PairRevoker,
    private readonly settings: RefresherSettings,
    private readonly logger: Logger,
  ) {}

  async tick(): Promise<void> {
    const now = this.settings.now();
    const waiting = this.log.all().filter((pair) => pair.state === 'establishing');
    for (const id of this.backoff.keys()) if (!waiting.some((pair) => pair.pair_id === id)) this.backoff.delete(id);
    const expired = waiting.filter((pair) => Date.parse(pair.requested_at) + this.settings.pendingTtlMs <= now);
    for (const pair of expired) {
      const days = Math.round((this.settings.pendingTtlMs / 86_400_000) * 10) / 10;
      await this.revoker
        .revoke(pair.pair_id, { side: 'local', reason: `expired: the pair request was not approved within ${days} days`, by: this.log.instanceDid, notify: pair.role === 'initiator' })
        .then(() => this.logger.log('info', 'federation pair request expired', { pair_id: pair.pair_id, role: pair.role }))
        .catch((error: unknown) => this.logger.log('error', 'federation pair: expiring a request failed', { pair_id: pair.pair_id, error: String(error) }));
    }
    const polls = waiting.filter((pair) => pair.role === 'initiator' && !expired.includes(pair) && (this.backoff.get(pair.pair_id)?.nextAt ?? 0) <= now);
    await Promise.all(polls.map((pair) => this.poll(pair.pair_id)));
  }

  private async poll(pairId: string): Promise<void> {
    try {
      await this.initiator.refresh(pairId);
      this.backoff.delete(pairId);
    } catch (error) {
      const failures = (this.backoff.get(pairId)?.failures ?? 0) + 1;
      const waitMs = Math.min(MAX_POLL_WAIT_MS, this.settings.intervalMs * 2 ** Math.min(failures, 20));
      this.backoff.set(pairId, { failures, nextAt: this.settings.now() + waitMs });
      if (failures === 1) {
        this.logger.log('warn', 'federation pair: polling the peer failed; retried with backoff until it answers or the request expires', { pair_id: pairId, code: (error as { code?: string })?.code ?? 'INTERNAL', message: String((error as Error)?.message ?? error) });
      }
    }
  }
}
