/**
 * The records the bus published since a log consumer last caught up, kept in
 * memory so its next batch comes without a store read. Without it a consumer
 * that keeps up queries the store once per ingested record (single-record
 * ingest wakes it for each), which cost HTTP ingest about 7%.
 *
 * Bounded: past `capacity` records it drops them all, and the consumer reads
 * the store until the cursor meets the tail again. Nothing is lost either
 * way: the tail is only ever a copy of what the store already holds.
 */
import type { StoredRecord } from '../../storage/contract/stored-record.js';

export class LiveTail {
  private records: StoredRecord[] = [];
  /** The sequence just before `records[0]`: the bus position when the first was offered (null: nothing kept). */
  private after: number | null = null;

  constructor(private readonly capacity: number) {}

  /** Records the bus is publishing now; `publishedBefore` is its position before them. */
  offer(records: readonly StoredRecord[], publishedBefore: number): void {
    if (this.after === null) this.after = publishedBefore;
    if (this.records.length + records.length > this.capacity) {
      this.clear();
      return;
    }
    for (const stored of records) this.records.push(stored);
  }

  /**
   * Up to `max` records right after `cursor`, or null when the tail does not
   * start at or before the cursor (a consumer behind it reads the store).
   */
  take(cursor: number, max: number): StoredRecord[] | null {
    if (this.after === null || cursor < this.after) return null;
    if (cursor > this.after) {
      // The cursor passed part of the tail (read from the store, or rewound forward).
      let passed = 0;
      while (passed < this.records.length && this.records[passed]!.sequence <= cursor) passed++;
      this.records.splice(0, passed);
      if (this.records.length === 0) {
        this.after = null;
        return null;
      }
      this.after = cursor;
    }
    if (this.records.length === 0) return [];
    const page = this.records.splice(0, max);
    this.after = page[page.length - 1]!.sequence;
    return page;
  }

  clear(): void {
    this.records = [];
    this.after = null;
  }
}
