/**
 * The in-process record bus (spec §6.1). Every committed record is published
 * in sequence order. Two kinds of listener:
 * - inline listeners run synchronously inside `publish`, before ingest answers
 *   its caller; core folds use them so a namespace declared by one request is
 *   in force for the next. They must be fast and must not throw.
 * - subscriptions are async iterators with a bounded buffer. A slow subscriber
 *   never blocks ingest: when its buffer overflows it drops the buffer and
 *   catches up from the store by sequence number, so it never misses a record.
 *
 * Records reach the bus one of two ways. With a log only this process writes,
 * ingest publishes each record the moment its append resolves (`committed`).
 * With a shared log (several servers on one database, `followStore`), the
 * bus publishes from the store's changes feed instead, every server's
 * records alike, woken by the store's commit hints and a poll, and ingest
 * answers once the bus has published its record: folds, watchers and loops
 * see every record of the log in sequence order on every server.
 */
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

export type InlineListener = (records: readonly StoredRecord[]) => void;

export interface SubscribeOptions {
  /** Deliver records with sequence greater than this; defaults to "from now". */
  readonly after?: number;
  /** Only records matching this predicate are delivered (the cursor still advances). */
  readonly filter?: (stored: StoredRecord) => boolean;
  /** Buffered records before the subscriber falls back to catching up from the store. @default 1024 */
  readonly bufferSize?: number;
}

export interface Subscription extends AsyncIterableIterator<StoredRecord> {
  /** Sequence of the last record considered (delivered or filtered out). */
  readonly cursor: number;
  close(): void;
}

/** How often a following bus polls the store when no commit hint arrives (a lost NOTIFY, a reconnect). */
const FOLLOW_POLL_MS = 1000;
const FOLLOW_RETRY_MS = 500;

export class RecordBus {
  private readonly inline = new Set<InlineListener>();
  private readonly subscriptions = new Set<BusSubscription>();
  private lastPublished = 0;
  private onError: (error: unknown) => void = () => {};
  /** Shared logs: the highest sequence known committed, the pull in flight, ingest callers waiting for publication. */
  private follow: { target: number; pulling: boolean; waiters: Array<{ sequence: number; resolve: () => void }>; timer: NodeJS.Timeout | null; unwatch: () => void } | null = null;

  constructor(private readonly store: RecordStore) {}

  /** Whether records come from the store's feed (a shared log) rather than from this process's appends. */
  get following(): boolean {
    return this.follow !== null;
  }

  /** Shared logs: publish from the store's changes feed from now on (after `startAt`). */
  followStore(): void {
    if (this.follow) return;
    const unwatch = this.store.watchCommits?.((sequence) => this.noteCommitted(sequence)) ?? (() => {});
    this.follow = { target: this.lastPublished, pulling: false, waiters: [], timer: null, unwatch };
    this.schedulePoll(FOLLOW_POLL_MS);
  }

  private schedulePoll(delay: number): void {
    const follow = this.follow;
    if (!follow) return;
    if (follow.timer) clearTimeout(follow.timer);
    follow.timer = setTimeout(() => {
      follow.timer = null;
      this.store.watermark().then(
        (head) => this.noteCommitted(head),
        (error: unknown) => this.onError(error),
      );
      this.schedulePoll(FOLLOW_POLL_MS);
    }, delay);
    follow.timer.unref();
  }

  /** Records up to `sequence` are committed (a hint from the store or this process's own append). */
  private noteCommitted(sequence: number): void {
    const follow = this.follow;
    if (!follow) return;
    if (sequence > follow.target) follow.target = sequence;
    if (!follow.pulling && follow.target > this.lastPublished) void this.pull(follow);
  }

  /** Publishes the store's records after the bus position, in pages, up to the target. */
  private async pull(follow: NonNullable<RecordBus['follow']>): Promise<void> {
    follow.pulling = true;
    try {
      while (this.follow === follow && this.lastPublished < follow.target) {
        const page = await this.store.changesSince(this.lastPublished, 1000);
        if (this.follow !== follow) return;
        // A hint ahead of what is visible yet: the poll comes back for it.
        if (page.length === 0) break;
        const fresh = page.filter((stored) => stored.sequence > this.lastPublished);
        this.publish(fresh);
        this.settleFollowers(follow);
      }
    } catch (error) {
      this.onError(error);
      if (this.follow === follow) setTimeout(() => this.noteCommitted(0), FOLLOW_RETRY_MS).unref();
    } finally {
      follow.pulling = false;
    }
    if (this.follow === follow && follow.target > this.lastPublished && !follow.pulling) void this.pull(follow);
  }

  private settleFollowers(follow: NonNullable<RecordBus['follow']>): void {
    if (follow.waiters.length === 0) return;
    const still: typeof follow.waiters = [];
    for (const waiter of follow.waiters) {
      if (waiter.sequence <= this.lastPublished) waiter.resolve();
      else still.push(waiter);
    }
    follow.waiters = still;
  }

  /**
   * Resolves once the bus has published everything the store had committed
   * when called (at once for a log only this process writes, which the bus
   * always has): what a server must see before deciding on the log's state.
   */
  async caughtUp(): Promise<void> {
    const follow = this.follow;
    if (!follow) return;
    const head = await this.store.watermark();
    if (head <= this.lastPublished || this.follow !== follow) return;
    await new Promise<void>((resolve) => {
      follow.waiters.push({ sequence: head, resolve });
      this.noteCommitted(head);
    });
  }

  /**
   * Ingest's call once records (in sequence order) are committed. A local
   * log: publishes them now, synchronously, so records are published in
   * sequence order. A shared log: resolves once the bus has published
   * through the last of them (with every record of other servers before it).
   */
  committed(records: readonly StoredRecord[]): void | Promise<void> {
    if (records.length === 0) return;
    const follow = this.follow;
    if (!follow) return this.publish(records);
    const sequence = records[records.length - 1]!.sequence;
    if (sequence <= this.lastPublished) return;
    // Our own records right after what is published (the usual case: no other server committed in
    // between) go out at once, as with a local log; a gap means another server's records come first.
    const fresh = records.filter((stored) => stored.sequence > this.lastPublished);
    if (fresh.every((stored, i) => stored.sequence === this.lastPublished + 1 + i)) {
      this.publish(fresh);
      this.settleFollowers(follow);
      return;
    }
    return new Promise<void>((resolve) => {
      follow.waiters.push({ sequence, resolve });
      this.noteCommitted(sequence);
    });
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
    const follow = this.follow;
    if (follow) {
      this.follow = null;
      follow.unwatch();
      if (follow.timer) clearTimeout(follow.timer);
      for (const waiter of follow.waiters) waiter.resolve();
    }
    for (const subscription of [...this.subscriptions]) subscription.close();
  }
}

class BusSubscription implements Subscription {
  /** Live records offered by publish(). */
  private buffer: StoredRecord[] = [];
  /** Records read back from the store while catching up. */
  private backlog: StoredRecord[] = [];
  private lagging: boolean;
  private closed = false;
  private waiter: (() => void) | null = null;
  private readonly bufferSize: number;
  private position: number;

  constructor(
    private readonly store: RecordStore,
    after: number,
    private readonly options: SubscribeOptions,
    private readonly published: () => number,
    private readonly detach: (s: BusSubscription) => void,
  ) {
    this.position = after;
    this.bufferSize = options.bufferSize ?? 1024;
    // Starting in the past means reading the store first.
    this.lagging = after < published();
  }

  get cursor(): number {
    return this.position;
  }

  offer(records: readonly StoredRecord[]): void {
    if (!this.closed && !this.lagging) {
      if (this.buffer.length + records.length > this.bufferSize) {
        // Too slow: drop the buffer and read from the store instead; nothing is lost.
        this.buffer = [];
        this.lagging = true;
      } else {
        this.buffer.push(...records);
      }
    }
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  async next(): Promise<IteratorResult<StoredRecord>> {
    for (;;) {
      if (this.closed) return { done: true, value: undefined };
      const stored = this.backlog.shift() ?? (this.lagging ? undefined : this.buffer.shift());
      if (stored) {
        if (stored.sequence <= this.position) continue;
        this.position = stored.sequence;
        if (this.options.filter && !this.options.filter(stored)) continue;
        return { done: false, value: stored };
      }
      if (this.lagging) {
        await this.catchUp();
        continue;
      }
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
  }

  private async catchUp(): Promise<void> {
    const page = await this.store.changesSince(this.position, 1000);
    if (this.closed) return;
    if (page.length > 0) {
      this.backlog = page;
      return;
    }
    // Publish follows commit, so everything published up to now is in the
    // store; once we have read past it we can go live again. Checked
    // synchronously after the read, so no publish can slip in between.
    if (this.position >= this.published()) {
      this.lagging = false;
      this.buffer = [];
    } else {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StoredRecord> {
    return this;
  }

  async return(): Promise<IteratorResult<StoredRecord>> {
    this.close();
    return { done: true, value: undefined };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach(this);
    this.wake();
  }
}

import { token } from '../di/token.js';
export const RecordBusToken = token<RecordBus>('core.RecordBus');
