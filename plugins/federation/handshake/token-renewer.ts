/**
 * Renews the tokens this instance holds for its pairs when `tokenRenewLeadMs`
 * of their life is left (default 7 days: at 83 of 90 days), every
 * `tokenCheckMs`. A failed renewal is retried at the next check and logged
 * once per streak of failures, not per try; a token that expires anyway
 * makes the pair `degraded` (TOKEN_EXPIRED, pair-health.ts). A singleton
 * engine loop: on a shared log only the leader renews.
 */
import type { EngineLoop } from '../../../core/engine/engine-loop.js';
import type { Logger } from '../../../core/plugin/logger.js';
import type { PairLog } from './pair-log.js';
import type { TokenRenewal } from './token-renewal.js';

export class TokenRenewer implements EngineLoop {
  readonly name = 'federation-token-renewal';
  readonly singleton = true;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private readonly failing = new Set<string>();

  constructor(
    private readonly log: PairLog,
    private readonly renewal: TokenRenewal,
    private readonly settings: { readonly everyMs: number; readonly leadMs: number; readonly now: () => number },
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = null;
        this.schedule();
      });
    }, this.settings.everyMs);
    this.timer.unref();
  }

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
      if (this.stopped) return;
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
