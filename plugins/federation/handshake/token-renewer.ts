/**
 * Renews the tokens this instance holds for its pairs when `tokenRenewLeadMs`
 * of their life is left (default 7 days: at 83 of 90 days), every
 * `tokenCheckMs`. A failed renewal is retried at the next check and logged
 * once per streak of failures, not per try; a token that expires anyway
 * makes the pair `degraded` (TOKEN_EXPIRED, pair-health.ts). Run by the
 * kernel's IntervalLoop as a singleton: on a shared log only the leader renews.
 */
import type { Logger } from '../../../core/plugin/logger.js';
import type { PairLog } from './pair-log.js';
import type { TokenRenewal } from './token-renewal.js';

export class TokenRenewer {
  private readonly failing = new Set<string>();

  constructor(
    private readonly log: PairLog,
    private readonly renewal: TokenRenewal,
    private readonly settings: { readonly leadMs: number; readonly now: () => number },
    private readonly logger: Logger,
  ) {}

  /** The pairs whose held token is due (also for tests). */
  due(): string[] {
    const horizon = this.settings.now() + this.settings.leadMs;
    return this.log
      .all()
      .filter((pair) => (pair.state === 'active' || pair.state === 'degraded' || pair.state === 'paused') && pair.held_token_expires_at !== null && Date.parse(pair.held_token_expires_at) <= horizon)
      .map((pair) => pair.pair_id);
  }

  async tick(): Promise<void> {
    for (const pairId of this.due()) {
      try {
        await this.renewal.renew(pairId);
        this.failing.delete(pairId);
        this.logger.log('info', 'federation pair: token renewed', { pair_id: pairId });
      } catch (error) {
        if (!this.failing.has(pairId)) this.logger.log('warn', 'federation pair: token renewal failed; retried at each check', { pair_id: pairId, code: (error as { code?: string })?.code ?? 'INTERNAL', message: String((error as Error)?.message ?? error) });
        this.failing.add(pairId);
      }
    }
  }
}
