/**
 * The consumers of this server (core/engine/log-consumer.ts): builds each
 * one's runner with its checkpoint, and answers health and /metrics for all
 * of them from one place (ConsumerRegistryToken).
 */
import { join } from 'node:path';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { RecordBus } from './broadcast.js';
import { ConsumerRunner } from './consumer-runner.js';
import type { ConsumerRegistry, ConsumerStatus, LogConsumer } from './log-consumer.js';
import { loopCheckpoint } from './loop-checkpoint.js';
import type { SystemThreads } from './system-threads.js';

export interface LogConsumersDeps {
  readonly store: RecordStore;
  readonly bus: RecordBus;
  readonly systemThreads: SystemThreads;
  readonly onError: (error: unknown, context: string) => void;
  readonly engaged: () => boolean;
}

export class LogConsumers implements ConsumerRegistry {
  private readonly runners = new Map<string, ConsumerRunner>();

  constructor(private readonly deps: LogConsumersDeps) {}

  /**
   * The runner of `consumer` contributed by `plugin`, whose data directory is
   * `dataDir`. The checkpoint is kept by the store for a leader-only consumer
   * of a shared log (whichever server leads next resumes there), else in
   * `<dataDir>/<name>-checkpoint.json` (per server).
   */
  add(plugin: string, consumer: LogConsumer, dataDir: string | null): ConsumerRunner {
    const name = `${plugin}.${consumer.name}`;
    if (this.runners.has(name)) throw new Error(`log consumer ${name} is contributed twice`);
    const keeps = consumer.keepCheckpoint !== false;
    const checkpoint = keeps ? loopCheckpoint(consumer.leaderOnly ? this.deps.store : null, name, dataDir === null ? null : join(dataDir, `${consumer.name}-checkpoint.json`)) : null;
    const runner = new ConsumerRunner(consumer, { plugin, checkpoint, ...this.deps });
    this.runners.set(name, runner);
    return runner;
  }

  list(): ConsumerStatus[] {
    return [...this.runners.values()].map((runner) => runner.status());
  }
}
