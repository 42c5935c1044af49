/**
 * Records acknowledged (durable in the ingest journal) but not yet applied
 * to the driver, in sequence order, with the lookups reads and conflict
 * checks need. Entries leave only after the driver has committed them, so
 * a reader that looks here first and at the driver second never misses a
 * record: anything gone from here was already in the driver.
 */
import { clockSlotKey, type StoredRecord } from '../stored-record.js';
import type { AcceptedRecord } from './accepted-record.js';

export class UnappliedTail {
  private entries: AcceptedRecord[] = [];
  /** `clockSlotKey` of each entry, kept so dropping it need not build the key again. */
  private slots: string[] = [];
  /** Index in `entries` of the oldest entry still held (the front is dropped lazily). */
  private start = 0;
  private readonly byId = new Map<string, StoredRecord>();
  private readonly bySlot = new Map<string, StoredRecord>();

  get size(): number {
    return this.entries.length - this.start;
  }

  /** Sequence of the newest entry, or null when empty. */
  get lastSequence(): number | null {
    return this.size === 0 ? null : this.entries[this.entries.length - 1]!.stored.sequence;
  }

  add(records: readonly AcceptedRecord[]): void {
    for (const accepted of records) {
      const slot = accepted.slot ?? clockSlotKey(accepted.stored.record);
      this.entries.push(accepted);
      this.slots.push(slot);
      this.byId.set(accepted.stored.record.id, accepted.stored);
      this.bySlot.set(slot, accepted.stored);
    }
  }

  /** Up to `limit` of the oldest entries, for the applier. */
  oldest(limit: number): AcceptedRecord[] {
    return this.entries.slice(this.start, this.start + limit);
  }

  /** Drops entries with sequence ≤ `sequence` (they are committed in the driver). */
  dropThrough(sequence: number): void {
    while (this.start < this.entries.length && this.entries[this.start]!.stored.sequence <= sequence) {
      this.byId.delete(this.entries[this.start]!.stored.record.id);
      this.bySlot.delete(this.slots[this.start]!);
      this.start++;
    }
    // Compact once the dropped front outweighs what is held.
    if (this.start > 1024 && this.start * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.start);
      this.slots = this.slots.slice(this.start);
      this.start = 0;
    }
  }

  get(id: string): StoredRecord | undefined {
    return this.byId.get(id);
  }

  slotHolder(slot: string): StoredRecord | undefined {
    return this.bySlot.get(slot);
  }

  /** Entries with sequence > `after` that satisfy `match`, ascending, at most `limit`. */
  select(after: number, limit: number, match?: (stored: StoredRecord) => boolean): StoredRecord[] {
    const out: StoredRecord[] = [];
    for (let i = this.firstAfter(after); i < this.entries.length && out.length < limit; i++) {
      const { stored } = this.entries[i]!;
      if (!match || match(stored)) out.push(stored);
    }
    return out;
  }

  /** Index of the first held entry with sequence > `after` (entries ascend): a reader near the head skips the tail by halving, not by walking it. */
  private firstAfter(after: number): number {
    let low = this.start;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.entries[middle]!.stored.sequence > after) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

/**
 * Merges a driver page and tail entries (both ascending, possibly sharing
 * records that were applied in between) into the first `limit` records.
 */
export function mergeBySequence<T extends { readonly sequence: number }>(driver: readonly T[], tail: readonly T[], limit: number): T[] {
  if (tail.length === 0) return driver.length > limit ? driver.slice(0, limit) : [...driver];
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (out.length < limit && (i < driver.length || j < tail.length)) {
    const a = driver[i];
    const b = tail[j];
    if (b === undefined || (a !== undefined && a.sequence < b.sequence)) {
      out.push(a!);
      i++;
    } else if (a === undefined || b.sequence < a.sequence) {
      out.push(b);
      j++;
    } else {
      out.push(a);
      i++;
      j++;
    }
  }
  return out;
}
