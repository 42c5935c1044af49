/**
 * The initiator's refresh of pairs still `establishing` (the peer waits for
 * its operator's approval): a signed poll every `handshakePollMs` until the
 * peer answers `active` (then the pair starts) or `revoked`. A singleton
 * engine loop, like the pair runners: on a shared log only the leader polls.
 * It follows the peer over the network, not the log, so it is a loop and not
 * a log consumer.
 */
import type { EngineLoop } from '../../../core/engine/engine-loop.js';
import type { Logger } from '../../../core/plugin/logger.js';
import type { PairInitiator } from './pair-initiator.js';
import type { PairLog } from './pair-log.js';

export class HandshakeRefresher implements EngineLoop {
  readonly name = 'federation-handshake';
  readonly singleton = true;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly log: PairLog,
    private readonly initiator: PairInitiator,
    private readonly intervalMs: number,
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
    }, this.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const waiting = this.log.all().filter((pair) => pair.role === 'initiator' && pair.state === 'establishing');
    await Promise.all(
      waiting.map((pair) =>
        this.initiator.refresh(pair.pair_id).catch((error: unknown) => {
          this.logger.log('warn', 'federation pair: refresh failed', { pair_id: pair.pair_id, code: (error as { code?: string })?.code ?? 'INTERNAL', message: String((error as Error)?.message ?? error) });
        }),
      ),
    );
  }
}
