/**
 * Log consumers: the fourth way records flow (beside ingest gates, read
 * policies and folds), into actions. A plugin declares what it does with a
 * batch of records (`handle`); the kernel owns everything else:
 *
 * - the cursor and its checkpoint: one format (core/engine/loop-checkpoint.ts),
 *   kept by the store for a leader-only consumer of a shared log (so the next
 *   leader resumes there), else in `<plugin dataDir>/<name>-checkpoint.json`;
 *   written after a batch `handle` finished (while the next batch is read:
 *   one write at a time, of the latest position, at most one per 200 ms
 *   while batches keep coming), held back to what `settledThrough` allows,
 *   and every second while settling moves it;
 * - leadership: a `leaderOnly` consumer runs only while this server holds the
 *   engine's leader lease (always, with a log of its own);
 * - wake-ups: the record bus (every server's records on a shared log); a
 *   consumer that keeps up takes its next batch from the records the bus
 *   just published (core/engine/live-tail.ts), one that lags reads the store;
 * - retries: `handle` throwing retries the same batch after a backoff that
 *   doubles from `backoff.initialMs` to `backoff.maxMs`, with jitter;
 * - back-pressure: while records keep arriving the consumer takes at most
 *   `busyShare` of the time (core/engine/loop-waits.ts);
 * - system threads: records of the reserved and plugin-declared control
 *   threads (core/engine/system-threads.ts) never reach `handle` unless the
 *   consumer sets `systemThreads: 'include'`; the cursor moves past them;
 * - interest: records `wants` turns down never reach `handle` either, and a
 *   caught-up consumer is not woken for a publish of only such records.
 *
 * Order: records reach `handle` in sequence order, a batch at a time, never
 * two batches at once. A restart (or a new leader) resumes after the saved
 * checkpoint, so a batch whose checkpoint was not saved (a kill -9 between
 * `handle` and the save) is handed over again: `handle` must tolerate that
 * (at least once); nothing at or below a saved checkpoint is handed twice,
 * and nothing is skipped.
 */
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { LoomRecord } from '../records/record.js';
import { token } from '../di/token.js';

/** Where a consumer starts when no checkpoint is saved (first start; or always, with `keepCheckpoint: false`). */
export type ConsumerStart =
  | 'head'
  | 'start'
  /** After this sequence (a position the consumer keeps itself, like the embedder's per-model frontier). */
  | { readonly after: number | (() => number | Promise<number>) };

export interface LogConsumer {
  /** Unique within the plugin; the kernel names it `<plugin>.<name>` (the checkpoint key, health, metrics). */
  readonly name: string;
  /** @default 'head' */
  readonly startAt?: ConsumerStart;
  /**
   * Whether the kernel keeps a checkpoint. Off for a consumer whose state
   * dies with the process (an in-memory index rebuilt from `startAt`), or
   * that keeps its own position atomically with its state.
   * @default true
   */
  readonly keepCheckpoint?: boolean;
  /** Runs on one server only when several share the log (the leader). @default false */
  readonly leaderOnly?: boolean;
  /** Records read from the log per batch (before system threads are taken out). @default 256 */
  readonly batchSize?: number;
  /** Share of the time the consumer may take while ingest is busy (0 < share ≤ 1). @default 1 */
  readonly busyShare?: number;
  /** @default 'skip' */
  readonly systemThreads?: 'skip' | 'include';
  /**
   * The records the consumer acts on; the others never reach `handle` (the
   * cursor moves past them). A consumer that keeps up is not even woken for
   * a publish holding none of them: its cursor moves with the log, and its
   * checkpoint follows. Declare it when most records do not concern the
   * consumer (the agent plugins' run and usage consumers), so adding them
   * costs a plain record nothing. Must be a pure, cheap test of the record.
   * @default every record
   */
  wants?(record: LoomRecord): boolean;
  /** Backoff after a failed batch, doubled per consecutive failure, ±25% jitter. @default { initialMs: 250, maxMs: 30_000 } */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /**
   * Handles a batch in sequence order: the records after `span.after` (the
   * cursor) through `span.through`, system threads taken out (so `records` is empty when the
   * whole span was system threads). Throwing retries the same batch after
   * the backoff.
   */
  handle(records: readonly StoredRecord[], span: { readonly after: number; readonly through: number }): Promise<void>;
  /**
   * For work that outlives `handle` (a queue of dispatches): the sequence
   * through which everything is done, given that `handled` is the last
   * sequence handed over. The checkpoint is the lower of the two.
   * @default handled
   */
  settledThrough?(handled: number): number;
  /**
   * Work beside the log (an index build, files to reconcile): called after
   * each batch and whenever the consumer is caught up. Returns the ms after
   * which it wants another call when caught up (0: at once), or null when it
   * has nothing left (the next call comes with the next records). Throwing
   * backs off like a failed batch.
   */
  idle?(context: { readonly caughtUp: boolean; readonly busy: boolean }): Promise<number | null>;
  /** Before the first batch (and after each leadership gain). */
  start?(): void | Promise<void>;
  /** After the last batch finished (stop, leadership lost), before the checkpoint is saved. */
  stop?(): void | Promise<void>;
}

export type ConsumerState = 'stopped' | 'standby' | 'running' | 'caught_up' | 'backing_off';

/** What health and /metrics report per consumer. */
export interface ConsumerStatus {
  readonly name: string;
  readonly plugin: string;
  readonly state: ConsumerState;
  readonly leader_only: boolean;
  /** Last sequence handed to `handle`. */
  readonly cursor: number;
  /** The log head this server has seen. */
  readonly head: number;
  /** head − cursor. */
  readonly lag: number;
  /** The last checkpoint saved (null: none kept or none yet). */
  readonly checkpoint: number | null;
  readonly batches: number;
  readonly records: number;
  readonly consecutive_failures: number;
  readonly last_error: { readonly at: string; readonly message: string } | null;
}

/** What `scope.consume()` returns: the plugin's handle on its running consumer. */
export interface ConsumerHandle {
  readonly name: string;
  /** Last sequence handed to `handle`. */
  readonly cursor: number;
  status(): ConsumerStatus;
  /** Wakes the consumer now, cutting a backoff short (the cause of the failures changed). */
  wake(): void;
  /**
   * Moves the cursor to `after` (a rebuild from the start, a switch to state
   * kept elsewhere): a batch in flight finishes but does not move it back.
   */
  rewind(after: number): void;
  /** Resolves once everything published so far has been handed over and `idle` has nothing left (tests, benchmarks). */
  caughtUp(): Promise<void>;
}

/** Every consumer of this server, for health and /metrics. */
export interface ConsumerRegistry {
  list(): ConsumerStatus[];
}

export const ConsumerRegistryToken = token<ConsumerRegistry>('core.ConsumerRegistry');
