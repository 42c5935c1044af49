/**
 * Thread folds, computed on demand and cached: each read applies only the
 * records that arrived since the cached watermark, so a cached value is
 * always the full replay of the thread (tested). Least recently used states
 * are dropped beyond the cache size.
 */
import { LRUCache } from 'lru-cache';
import type { AnyFold } from '../folds/fold.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import { recordPages } from './record-pages.js';

export interface ThreadFoldSlot {
  state: unknown;
  watermark: number;
}

export class ThreadFoldCache {
  /** An LRU, not a Map dropping its first key (V8 walks the deleted entries at a Map's front on every `keys().next()`); null for a size below 1, which caches nothing. */
  private readonly slots: LRUCache<string, ThreadFoldSlot> | null;
  private readonly inFlight = new Map<string, Promise<ThreadFoldSlot>>();

  constructor(
    private readonly store: RecordStore,
    size: number,
  ) {
    this.slots = size >= 1 ? new LRUCache({ max: Math.floor(size) }) : null;
  }

  /** The fold's state over the thread, up to date with the store. */
  get(fold: AnyFold, thread: string): Promise<ThreadFoldSlot> {
    const key = `${fold.name}\u0000${thread}`;
    // One refresh per key at a time: states are updated in place.
    const running = this.inFlight.get(key);
    if (running) return running;
    const refresh = this.refresh(fold, thread, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, refresh);
    return refresh;
  }

  private async refresh(fold: AnyFold, thread: string, key: string): Promise<ThreadFoldSlot> {
    const slot = this.slots?.get(key) ?? { state: fold.initial(thread), watermark: 0 };
    for await (const page of recordPages((request) => this.store.listByThread(thread, request), { after: slot.watermark })) {
      for (const stored of page.items) {
        slot.state = fold.apply(slot.state, stored);
        slot.watermark = stored.sequence;
      }
    }
    this.slots?.set(key, slot);
    return slot;
  }
}
