/**
 * A plugin with one log consumer that writes down what it is handed, for the
 * consumer compliance suite (test/consumers/): each handled record's
 * sequence as a line of `file` (appended synchronously, so a kill -9 loses
 * nothing the consumer handled), and in memory.
 */
import { appendFileSync } from 'node:fs';
import { definePlugin } from '../../core/plugin/plugin.js';
import type { ConsumerHandle, LogConsumer } from '../../core/engine/log-consumer.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

export interface ProbeOptions {
  readonly name?: string;
  readonly file?: string | null;
  readonly leaderOnly?: boolean;
  readonly startAt?: LogConsumer['startAt'];
  readonly batchSize?: number;
  readonly busyShare?: number;
  readonly systemThreads?: 'skip' | 'include';
  /** Milliseconds each batch takes (busy CPU when `spin`, else a timer). */
  readonly batchMs?: number;
  readonly spin?: boolean;
  /** Control threads the plugin declares. */
  readonly declares?: readonly string[];
  /** Throws on the first `failures` attempts. */
  readonly failures?: number;
  /** When set, `idle` takes this long (a timer) once caught up, then has nothing left. */
  readonly idleMs?: number;
  /** The consumer's `wants`. */
  readonly wants?: LogConsumer['wants'];
}

export interface Probe {
  readonly handled: StoredRecord[];
  readonly attempts: Array<{ after: number; through: number; ok: boolean }>;
  /** Milliseconds spent in handle, and when (performance.now()). */
  readonly busy: Array<{ start: number; end: number }>;
  handle: ConsumerHandle | null;
}

export function probePlugin(options: ProbeOptions = {}) {
  const probe: Probe = { handled: [], attempts: [], busy: [], handle: null };
  let failuresLeft = options.failures ?? 0;
  const consumer: LogConsumer = {
    name: options.name ?? 'probe',
    leaderOnly: options.leaderOnly,
    startAt: options.startAt ?? 'start',
    batchSize: options.batchSize,
    busyShare: options.busyShare,
    systemThreads: options.systemThreads,
    ...(options.wants ? { wants: options.wants } : {}),
    backoff: { initialMs: 20, maxMs: 200 },
    ...(options.idleMs === undefined
      ? {}
      : {
          async idle({ caughtUp }: { caughtUp: boolean }) {
            if (caughtUp) await new Promise((resolve) => setTimeout(resolve, options.idleMs));
            return null;
          },
        }),
    async handle(records, span) {
      const start = performance.now();
      if (failuresLeft > 0) {
        failuresLeft--;
        probe.attempts.push({ ...span, ok: false });
        throw new Error('probe: failing on purpose');
      }
      if (options.batchMs) {
        if (options.spin) while (performance.now() - start < options.batchMs);
        else await new Promise((resolve) => setTimeout(resolve, options.batchMs));
      }
      probe.handled.push(...records);
      if (options.file && records.length > 0) appendFileSync(options.file, records.map((stored) => `${stored.sequence} ${stored.record.id}\n`).join(''));
      probe.attempts.push({ ...span, ok: true });
      probe.busy.push({ start, end: performance.now() });
    },
  };
  const plugin = definePlugin({
    name: 'probe',
    version: '1.0.0',
    dependencies: ['ledger'],
    register(scope) {
      for (const thread of options.declares ?? []) scope.systemThread(thread);
      probe.handle = scope.consume(consumer);
    },
  });
  return { plugin, probe };
}
