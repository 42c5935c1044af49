/**
 * One open thread: its records newest first, fetched a page at a time as the
 * view needs them, and the live tail over the SSE watch.
 *
 * Positions are fixed against a snapshot: the first page (sorted by sequence,
 * descending) names the newest sequence S and the count N at or below it; any
 * later page is "offset k among sequences ≤ S", so pages never shift while
 * records arrive. The watch starts after S, so the live rows and the snapshot
 * meet with no gap; after a drop it resumes with Last-Event-ID = the last
 * sequence received, and rows are deduplicated by record id all the same.
 */
import { signal } from '@preact/signals';
import type { LoomClient, Record as LoomRecord } from '../sdk/index.js';

export const PAGE = 100;

export interface Row {
  readonly record: LoomRecord;
  readonly sequence: number;
}

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'closed';

export class ThreadFeed {
  /** Bumped on every change the view must draw. */
  readonly version = signal(0);
  readonly state = signal<StreamState>('connecting');
  readonly error = signal<string | null>(null);
  /** Rows in view order: live (newest first) then the snapshot. */
  readonly total = signal(0);
  private snapshotSeq = 0;
  private snapshotTotal = 0;
  private readonly snapshot: (Row | undefined)[] = [];
  private readonly live: Row[] = [];
  private readonly ids = new Set<string>();
  private readonly pending = new Set<number>();
  private lastSeq = 0;
  private readonly stop = new AbortController();
  /** The row a link asked for (`?at=<record id>`): its position once found. */
  readonly anchor = signal<{ id: string; index: number } | null>(null);
  /** Live rows added since the view last stood at the top (shown as "behind by N"). */
  readonly behind = signal(0);
  onLive: ((added: number) => void) | null = null;

  constructor(
    private readonly client: LoomClient,
    readonly thread: string,
  ) {}

  async open(): Promise<void> {
    const { data, error } = await this.client.queryRecords({ body: { thread: this.thread, sort: { sequence: -1 }, limit: PAGE } });
    if (error || !data) {
      this.error.value = (error as { message?: string } | undefined)?.message ?? 'could not read the thread';
      this.state.value = 'closed';
      return;
    }
    this.snapshotSeq = data.sequences[0] ?? 0;
    this.snapshotTotal = data.matched_total;
    this.snapshot.length = this.snapshotTotal;
    this.place(0, data.data, data.sequences);
    this.lastSeq = this.snapshotSeq;
    this.total.value = this.snapshotTotal;
    this.version.value++;
    void this.watch();
  }

  /**
   * Finds where record `id` sits (newest first): its sequence, then how many
   * of the snapshot's records are newer. The page holding it loads as the view scrolls there.
   */
  async locate(id: string): Promise<void> {
    const found = await this.client.queryRecords({ body: { thread: this.thread, filter: { id }, limit: 1 } });
    const sequence = found.data?.sequences[0];
    if (sequence === undefined) {
      this.error.value = `record ${id} is not on this thread`;
      return;
    }
    const newer = await this.client.queryRecords({ body: { thread: this.thread, filter: { sequence: { $gt: sequence, $lte: this.snapshotSeq } }, limit: 0 } });
    if (!newer.data) return;
    this.anchor.value = { id, index: this.live.length + newer.data.matched_total };
  }

  close(): void {
    this.stop.abort();
    this.state.value = 'closed';
  }

  row(index: number): Row | undefined {
    const live = this.live.length;
    if (index < live) return this.live[live - 1 - index];
    const at = index - live;
    const row = this.snapshot[at];
    if (!row && at < this.snapshotTotal) this.want(Math.floor(at / PAGE));
    return row;
  }

  /** Every record id held, for checks (gaps, duplicates). */
  heldIds(): string[] {
    return [...this.ids];
  }

  private place(offset: number, records: readonly LoomRecord[], sequences: readonly number[]): void {
    records.forEach((record, i) => {
      if (this.snapshot[offset + i]) return;
      this.snapshot[offset + i] = { record, sequence: sequences[i]! };
      this.ids.add(record.id);
    });
  }

  private want(page: number): void {
    if (this.pending.has(page)) return;
    this.pending.add(page);
    void (async () => {
      const { data } = await this.client.queryRecords({
        body: { thread: this.thread, filter: { sequence: { $lte: this.snapshotSeq } }, sort: { sequence: -1 }, limit: PAGE, offset: page * PAGE },
      });
      this.pending.delete(page);
      if (!data) return;
      this.place(page * PAGE, data.data, data.sequences);
      this.version.value++;
    })();
  }

  /** The watch, reopened after every drop with the last sequence received. */
  private async watch(): Promise<void> {
    let delay = 250;
    while (!this.stop.signal.aborted) {
      const attempt = new AbortController();
      const abort = () => attempt.abort();
      this.stop.signal.addEventListener('abort', abort, { once: true });
      try {
        const { stream } = await this.client.watchThread({
          path: { id: this.thread },
          headers: { 'Last-Event-ID': String(this.lastSeq) },
          signal: attempt.signal,
          sseMaxRetryAttempts: 1,
          // An answered request is a live feed, before any record comes.
          fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
            const response = await fetch(input, init);
            if (response.ok) this.state.value = 'live';
            return response;
          },
          onSseEvent: (event) => {
            delay = 250;
            if (event.event === 'record' && event.id !== undefined) this.receive(event.data as LoomRecord, Number(event.id));
          },
          onSseError: (error) => {
            this.error.value = error instanceof Error ? error.message : String(error);
          },
        });
        // The response arriving is "live" even before the first event.
        for await (const _ of stream) {
          void _;
        }
      } catch (error) {
        this.error.value = error instanceof Error ? error.message : String(error);
      } finally {
        this.stop.signal.removeEventListener('abort', abort);
      }
      if (this.stop.signal.aborted) break;
      this.state.value = 'reconnecting';
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  }

  private receive(record: LoomRecord, sequence: number): void {
    if (sequence > this.lastSeq) this.lastSeq = sequence;
    if (this.ids.has(record.id)) return;
    this.ids.add(record.id);
    this.live.push({ record, sequence });
    this.total.value = this.snapshotTotal + this.live.length;
    this.onLive?.(1);
    this.version.value++;
  }
}
