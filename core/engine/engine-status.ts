/**
 * What plugins may know about the engine without holding it: the log's
 * backend, whether this server leads a shared log, how far the global folds
 * trail the log. Read-only facts for health, metrics and leader-only work;
 * the store, the bus and the fold engine stay inside the kernel.
 */
import { token } from '../di/token.js';
import type { LoomEngine } from './loom-engine.js';

export interface EngineStatus {
  /** The store driver's backend name (`sqlite`, `level`, `postgres`, …). */
  readonly backend: string;
  /** Several servers serve this log. */
  readonly sharedLog: boolean;
  /** The log survives a restart (a data directory or a database). */
  readonly persistent: boolean;
  /** This server runs the singleton work: always true for a log of its own. */
  readonly leader: boolean;
  /** The sequence of the last record published. */
  readonly position: number;
  /** Reads the log head from the store itself (a storage probe, not the cached position). */
  readHead(): Promise<number>;
  /** Records published but not yet applied by the global folds (largest over them). */
  foldLag(): number;
  /** Threads held in the log; absent when the driver cannot count them cheaply. */
  readonly countThreads?: () => Promise<number>;
}

export function engineStatus(engine: LoomEngine): EngineStatus {
  const store = engine.store;
  const count = store.countThreads?.bind(store);
  return {
    backend: store.capabilities.backend,
    sharedLog: store.capabilities.sharedLog === true,
    persistent: store.capabilities.persistent === true,
    readHead: () => store.watermark(),
    get leader() {
      return engine.leader;
    },
    get position() {
      return engine.reader.position;
    },
    foldLag() {
      let lag = 0;
      for (const fold of engine.folds.list()) {
        if (fold.scope === 'global' && !engine.folds.isLoading(fold.name)) lag = Math.max(lag, engine.reader.position - engine.folds.global(fold.name).watermark);
      }
      return lag;
    },
    ...(count ? { countThreads: () => count() } : {}),
  };
}

export const EngineStatusToken = token<EngineStatus>('core.EngineStatus');
