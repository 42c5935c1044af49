/**
 * Shared logs (several servers on one database): the bus publishes from the
 * store's changes feed instead of from this process's appends, every
 * server's records alike, woken by the store's commit hints and a poll, and
 * ingest answers once the bus has published its record.
 */
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

/** How often a following bus polls the store when no commit hint arrives (a lost NOTIFY, a reconnect). */
const FOLLOW_POLL_MS = 1000;
const FOLLOW_RETRY_MS = 500;

/** What the follower needs of the bus it feeds. */
export interface FollowedBus {
  /** Sequence of the last record published. */
  readonly position: number;
  publish(records: readonly StoredRecord[]): void;
}

export class StoreFollower {
  /** The highest sequence known committed. */
  private target: number;
  /** A pull in flight. */
  private pulling = false;
  /** Ingest callers waiting for publication. */
  private waiters: Array<{ sequence: number; resolve: () => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly unwatch: () => void;

  constructor(
    private readonly store: RecordStore,
    private readonly bus: FollowedBus,
    private readonly onError: (error: unknown) => void,
  ) {
    this.unwatch = store.watchCommits?.((sequence) => this.noteCommitted(sequence)) ?? (() => {});
    this.target = bus.position;
    this.schedulePoll(FOLLOW_POLL_MS);
  }

  private schedulePoll(delay: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const timer = setTimeout(() => {
      this.timer = null;
      this.store.watermark().then(
        (head) => this.noteCommitted(head),
        (error: unknown) => this.onError(error),
      );
      this.schedulePoll(FOLLOW_POLL_MS);
    }, delay);
    this.timer = timer;
    timer.unref();
  }

  /** Records up to `sequence` are committed (a hint from the store or this process's own append). */
  private noteCommitted(sequence: number): void {
    if (this.stopped) return;
    if (sequence > this.target) this.target = sequence;
    if (!this.pulling && this.target > this.bus.position) void this.pull();
  }

  /** Publishes the store's records after the bus position, in pages, up to the target. */
  private async pull(): Promise<void> {
    this.pulling = true;
    try {
      while (!this.stopped && this.bus.position < this.target) {
        const page = await this.store.changesSince(this.bus.position, 1000);
        if (this.stopped) return;
        // A hint ahead of what is visible yet: the poll comes back for it.
        if (page.length === 0) break;
        const fresh = page.filter((stored) => stored.sequence > this.bus.position);
        this.bus.publish(fresh);
        this.settle();
      }
    } catch (error) {
      this.onError(error);
      if (!this.stopped) setTimeout(() => this.noteCommitted(0), FOLLOW_RETRY_MS).unref();
    } finally {
      this.pulling = false;
    }
    if (!this.stopped && this.target > this.bus.position && !this.pulling) void this.pull();
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) {
      if (waiter.sequence <= this.bus.position) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  /** Resolves once the bus has published everything the store had committed when called. */
  async caughtUp(): Promise<void> {
    const head = await this.store.watermark();
    if (head <= this.bus.position || this.stopped) return;
    await new Promise<void>((resolve) => {
      this.waiters.push({ sequence: head, resolve });
      this.noteCommitted(head);
    });
  }

  /** Resolves once the bus has published through the last of `records` (with every record of other servers before it). */
  committed(records: readonly StoredRecord[]): void | Promise<void> {
    const sequence = records[records.length - 1]!.sequence;
    if (sequence <= this.bus.position) return;
    // Our own records right after what is published (the usual case: no other server committed in
    // between) go out at once, as with a local log; a gap means another server's records come first.
    const fresh = records.filter((stored) => stored.sequence > this.bus.position);
    if (fresh.every((stored, i) => stored.sequence === this.bus.position + 1 + i)) {
      this.bus.publish(fresh);
      this.settle();
      return;
    }
    return new Promise<void>((resolve) => {
      this.waiters.push({ sequence, resolve });
      this.noteCommitted(sequence);
    });
  }

  /** Stops following; callers still waiting are released. */
  stop(): void {
    this.stopped = true;
    this.unwatch();
    if (this.timer) clearTimeout(this.timer);
    for (const waiter of this.waiters) waiter.resolve();
  }
}
