/**
 * The in-process record bus (spec §6.1). Every committed record is published
 * in sequence order. Two kinds of listener:
 * - inline listeners run synchronously inside `publish`, before ingest answers
 *   its caller; core folds use them so a namespace declared by one request is
 *   in force for the next. They must be fast and must not throw.
 * - subscriptions are async iterators with a bounded buffer
 *   (./bus-subscription.ts); a slow subscriber never blocks ingest and never
 *   misses a record.
 *
 * Records reach the bus one of two ways. With a log only this process writes,
 * ingest publishes each record the moment its append resolves (`committed`).
 * With a shared log (several servers on one database, `followStore`), the
 * bus publishes from the store's changes feed instead, every server's
 * records alike, woken by the store's commit hints and a poll, and ingest
 * answers once the bus has published its record: folds, watchers and loops
 * see every record of the log in sequence order on every server
 * (./store-follower.ts).
 */
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { token } from '../di/token.js';
import { BusSubscription, type SubscribeOptions, type Subscription } from './bus-subscription.js';
import { StoreFollower } from './store-follower.js';

export type { SubscribeOptions, Subscription } from './bus-subscription.js';

export type InlineListener = (records: readonly StoredRecord[]) => void;

export class RecordBus {
  private readonly inline = new Set<InlineListener>();
  private readonly subscriptions = new Set<BusSubscription>();
  private lastPublished = 0;
  private onError: (error: unknown) => void = () => {};
  /** Shared logs: publishes from the store's changes feed. */
  private follower: StoreFollower | null = null;

  constructor(private readonly store: RecordStore) {}

  /** Whether records come from the store's feed (a shared log) rather than from this process's appends. */
  get following(): boolean {
    return this.follower !== null;
  }

  /** Shared logs: publish from the store's changes feed from now on (after `startAt`). */
  followStore(): void {
    if (this.follower) return;
    this.follower = new StoreFollower(this.store, this, (error) => this.onError(error));
  }

  /**
   * Resolves once the bus has published everything the store had committed
   * when called (at once for a log only this process writes, which the bus
   * always has): what a server must see before deciding on the log's state.
   */
  async caughtUp(): Promise<void> {
    const follower = this.follower;
    if (!follower) return;
    await follower.caughtUp();
  }

  /**
   * Ingest's call once records (in sequence order) are committed. A local
   * log: publishes them now, synchronously, so records are published in
   * sequence order. A shared log: resolves once the bus has published
   * through the last of them (with every record of other servers before it).
   */
  committed(records: readonly StoredRecord[]): void | Promise<void> {
    if (records.length === 0) return;
    const follower = this.follower;
    if (!follower) return this.publish(records);
    return follower.committed(records);
  }

  /** Sequence of the last record published. */
  get position(): number {
    return this.lastPublished;
  }

  /** Sets where the bus starts (the store's watermark at startup). */
  startAt(sequence: number): void {
    this.lastPublished = Math.max(this.lastPublished, sequence);
  }

  reportErrorsTo(handler: (error: unknown) => void): void {
    this.onError = handler;
  }

  addInlineListener(listener: InlineListener): () => void {
    this.inline.add(listener);
    return () => this.inline.delete(listener);
  }

  publish(records: readonly StoredRecord[]): void {
    if (records.length === 0) return;
    for (const listener of this.inline) {
      try {
        listener(records);
      } catch (error) {
        this.onError(error);
      }
    }
    this.lastPublished = Math.max(this.lastPublished, records[records.length - 1]!.sequence);
    for (const subscription of this.subscriptions) subscription.offer(records);
  }

  subscribe(options: SubscribeOptions = {}): Subscription {
    const subscription = new BusSubscription(this.store, options.after ?? this.lastPublished, options, () => this.lastPublished, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Ends every subscription (at shutdown), and stops following the store. */
  closeAll(): void {
    const follower = this.follower;
    if (follower) {
      this.follower = null;
      follower.stop();
    }
    for (const subscription of [...this.subscriptions]) subscription.close();
  }
}

export const RecordBusToken = token<RecordBus>('core.RecordBus');
