/**
 * A subscription to the record bus: an async iterator with a bounded buffer.
 * A slow subscriber never blocks ingest: when its buffer overflows it drops
 * the buffer and catches up from the store by sequence number, so it never
 * misses a record.
 */
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

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

export class BusSubscription implements Subscription {
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
