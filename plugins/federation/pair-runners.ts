/**
 * Runs the sync pairs on one server of a log: a singleton engine loop, so
 * with a shared log only the leader pulls, and a new leader takes over when
 * the old one stops or dies. It keeps one PairRunner per pair of the registry
 * fold, started after the pair's secret and cursor were read from their home
 * (PairKeeping). Lifecycle records reach it through the log whichever server
 * wrote them: `paused`/`resumed`/`kicked`/`updated` act on the runner at once,
 * `created`/`deleted` start or stop one.
 */
import type { EngineLoop } from '../../core/engine/engine-loop.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import type { PairKeeping } from './pair-keeping.js';
import { PAIR_KIND } from './pair-records.js';
import type { PairRegistry } from './pair-registry-fold.js';
import { PairRunner, type PairRunnerDeps } from './pair-runner.js';

export class PairRunners implements EngineLoop {
  readonly name = 'sync-pairs';
  readonly singleton = true;
  private readonly runners = new Map<string, PairRunner>();
  private running = false;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: () => PairRegistry,
    private readonly keeping: PairKeeping,
    private readonly deps: Omit<PairRunnerDeps, 'files'>,
  ) {}

  /** The runner of a pair when it runs on this server. */
  runner(pairId: string): PairRunner | undefined {
    return this.runners.get(pairId);
  }

  start(): Promise<void> {
    this.running = true;
    return this.reconcile();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.chain;
    const stopping = [...this.runners.values()];
    this.runners.clear();
    await Promise.all(stopping.map((runner) => runner.stop()));
    await this.keeping.flush();
  }

  /** Resolves when the runners match the registry as of this call. */
  settled(): Promise<void> {
    return this.chain;
  }

  /** Called inline with every publish, after the registry fold applied the records. */
  onPublished(records: readonly StoredRecord[]): void {
    if (!this.running) return;
    let changed = false;
    for (const { record } of records) {
      if (record.thread !== TH_FEDERATION_PAIRS) continue;
      const body = record.body as Record<string, unknown>;
      if (body['kind'] !== PAIR_KIND || typeof body['pair_id'] !== 'string') continue;
      const runner = this.runners.get(body['pair_id']);
      const entry = this.registry().get(body['pair_id']);
      if (body['event'] === 'kicked') runner?.kick();
      else if (body['event'] === 'updated') {
        if (runner && entry) runner.reconfigure(entry);
      } else if (runner && entry && entry.paused !== runner.pair.paused) {
        if (entry.paused) runner.pause();
        else runner.resume();
      } else changed = true;
    }
    if (changed) void this.reconcile();
  }

  private reconcile(): Promise<void> {
    this.chain = this.chain
      .then(async () => {
        const registry = this.registry();
        for (const [id, runner] of this.runners) {
          if (registry.has(id) && this.running) continue;
          this.runners.delete(id);
          await runner.stop();
          if (!registry.has(id)) {
            // Deleted: the runner's last page must not bring the cursor back.
            this.keeping.setCursor(id, null);
            await this.keeping.setSecret(id, null);
          }
        }
        for (const entry of registry.values()) {
          if (!this.running) return;
          if (this.runners.has(entry.pair_id)) continue;
          await this.keeping.refresh(entry.pair_id);
          // The registry may have moved on while the pair's values were read.
          const current = this.registry().get(entry.pair_id);
          if (!current || !this.running) continue;
          const runner = new PairRunner(current, { ...this.deps, files: this.keeping });
          this.runners.set(entry.pair_id, runner);
          runner.start();
        }
      })
      .catch((error: unknown) => this.deps.log.log('error', 'sync pairs: starting or stopping runners failed', { error: String(error) }));
    return this.chain;
  }
}
