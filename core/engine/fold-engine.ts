/**
 * Runs the registered folds. Global folds are rebuilt from the log at start
 * and then applied inline on every broadcast, so their value is current when
 * ingest answers. Thread folds are computed on demand and cached; each read
 * applies only the records that arrived since the cached watermark, so a
 * cached value is always the full replay of the thread (tested).
 */
import { LoomError } from '../errors/loom-error.js';
import type { AnyFold, FoldAnswer } from '../folds/fold.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { token } from '../di/token.js';
import type { RecordBus } from './broadcast.js';

interface GlobalSlot {
  readonly fold: AnyFold;
  state: unknown;
  watermark: number;
  readonly watchers: Set<(value: unknown) => void>;
}

interface ThreadSlot {
  state: unknown;
  watermark: number;
}

export interface FoldDescriptor {
  name: string;
  scope: 'thread' | 'global';
  description: string;
}

export interface FoldEngineOptions {
  /** Cached thread-fold states kept in memory. @default 5000 */
  readonly threadCacheSize?: number;
  readonly onError?: (error: unknown, context: string) => void;
}

export class FoldEngine {
  private readonly folds = new Map<string, AnyFold>();
  private readonly globals = new Map<string, GlobalSlot>();
  private readonly threadCache = new Map<string, ThreadSlot>();
  private readonly inFlight = new Map<string, Promise<ThreadSlot>>();
  private started = false;
  private detach: (() => void) | null = null;
  private readonly threadCacheSize: number;
  private readonly onError: (error: unknown, context: string) => void;

  constructor(
    private readonly store: RecordStore,
    private readonly bus: RecordBus,
    options: FoldEngineOptions = {},
  ) {
    this.threadCacheSize = options.threadCacheSize ?? 5000;
    this.onError = options.onError ?? (() => {});
  }

  register(fold: AnyFold): void {
    if (this.started) throw new Error(`fold ${fold.name} registered after the fold engine started`);
    if (this.folds.has(fold.name)) throw new Error(`fold ${fold.name} is registered twice`);
    this.folds.set(fold.name, fold);
  }

  list(): FoldDescriptor[] {
    return [...this.folds.values()].map(({ name, scope, description }) => ({ name, scope, description }));
  }

  has(name: string): boolean {
    return this.folds.has(name);
  }

  /** Rebuilds every global fold from the log, then follows the bus inline. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    const queued: StoredRecord[] = [];
    let replaying = true;
    // Attach first and queue, so nothing published during the replay is lost.
    this.detach = this.bus.addInlineListener((records) => {
      if (replaying) queued.push(...records);
      else this.applyGlobal(records);
    });
    const watermark = await this.store.watermark();
    for (const fold of this.folds.values()) {
      if (fold.scope !== 'global') continue;
      const slot: GlobalSlot = { fold, state: fold.initial(fold.name), watermark: 0, watchers: new Set() };
      this.globals.set(fold.name, slot);
      await this.replayGlobal(slot, watermark);
    }
    replaying = false;
    this.applyGlobal(queued);
  }

  stop(): void {
    this.detach?.();
    this.detach = null;
  }

  private async replayGlobal(slot: GlobalSlot, upTo: number): Promise<void> {
    const threads = slot.fold.threads;
    if (threads && threads.length === 1) {
      let after = 0;
      for (;;) {
        const page = await this.store.listByThread(threads[0]!, { after, limit: 1000 });
        for (const stored of page.items) if (stored.sequence <= upTo) this.applyOne(slot, stored);
        if (page.nextAfter === null) break;
        after = page.nextAfter;
      }
    } else {
      let after = 0;
      while (after < upTo) {
        const page = await this.store.changesSince(after, 5000);
        if (page.length === 0) break;
        for (const stored of page) if (stored.sequence <= upTo && (!threads || threads.includes(stored.record.thread))) this.applyOne(slot, stored);
        after = page[page.length - 1]!.sequence;
      }
    }
    slot.watermark = Math.max(slot.watermark, upTo);
  }

  private applyOne(slot: GlobalSlot, stored: StoredRecord): void {
    try {
      slot.state = slot.fold.apply(slot.state, stored);
    } catch (error) {
      this.onError(error, `fold ${slot.fold.name} failed on record ${stored.record.id}`);
    }
  }

  private applyGlobal(records: readonly StoredRecord[]): void {
    for (const slot of this.globals.values()) {
      const threads = slot.fold.threads;
      let touched = false;
      for (const stored of records) {
        if (stored.sequence <= slot.watermark) continue;
        slot.watermark = stored.sequence;
        if (threads && !threads.includes(stored.record.thread)) continue;
        this.applyOne(slot, stored);
        touched = true;
      }
      if (touched && slot.watchers.size > 0) {
        const value = slot.fold.value(slot.state);
        for (const watcher of slot.watchers) {
          try {
            watcher(value);
          } catch (error) {
            this.onError(error, `watcher of fold ${slot.fold.name} failed`);
          }
        }
      }
    }
  }

  /** The registered fold of that name and scope; NOT_FOUND otherwise. */
  descriptorOf(name: string, scope: 'thread' | 'global'): AnyFold {
    return this.fold(name, scope);
  }

  private fold(name: string, scope: 'thread' | 'global'): AnyFold {
    const fold = this.folds.get(name);
    if (!fold) throw new LoomError('NOT_FOUND', `no fold named ${JSON.stringify(name)} (folds: ${[...this.folds.keys()].join(', ')})`);
    if (fold.scope !== scope) {
      throw new LoomError('NOT_FOUND', scope === 'global' ? `fold ${name} is per thread: GET /v1/folds/${name}/{thread}` : `fold ${name} is global: GET /v1/folds/${name}`);
    }
    return fold;
  }

  /** The current value of a global fold. */
  global<V>(name: string): FoldAnswer<V> {
    this.fold(name, 'global');
    const slot = this.globals.get(name);
    if (!slot) throw new LoomError('SERVICE_UNAVAILABLE', `fold ${name} is not started yet`);
    return { fold_name: name, cache_key: `${name}@${slot.watermark}`, watermark: slot.watermark, value: slot.fold.value(slot.state) as V };
  }

  /** The live state of a global fold, for in-process consumers (read-only by convention). */
  globalState<S>(name: string): S {
    const slot = this.globals.get(name);
    if (!slot) throw new LoomError('SERVICE_UNAVAILABLE', `fold ${name} is not started yet`);
    return slot.state as S;
  }

  /** Calls `watcher` with the new value each time a broadcast changes a global fold. */
  watch<V>(name: string, watcher: (value: V) => void): () => void {
    const slot = this.globals.get(name);
    if (!slot) throw new Error(`fold ${name} is not a started global fold`);
    slot.watchers.add(watcher as (value: unknown) => void);
    return () => slot.watchers.delete(watcher as (value: unknown) => void);
  }

  /** A thread fold's value, up to date with the store. */
  async thread<V>(name: string, thread: string): Promise<FoldAnswer<V>> {
    const fold = this.fold(name, 'thread');
    const slot = await this.threadSlot(fold, thread);
    return { fold_name: name, cache_key: `${name}/${thread}@${slot.watermark}`, watermark: slot.watermark, value: fold.value(slot.state) as V };
  }

  /** A thread fold's raw state (a private copy is not made: do not mutate). */
  async threadState<S>(name: string, thread: string): Promise<{ state: S; watermark: number }> {
    const slot = await this.threadSlot(this.fold(name, 'thread'), thread);
    return { state: slot.state as S, watermark: slot.watermark };
  }

  private threadSlot(fold: AnyFold, thread: string): Promise<ThreadSlot> {
    const key = `${fold.name}\u0000${thread}`;
    // One refresh per key at a time: states are updated in place.
    const running = this.inFlight.get(key);
    if (running) return running;
    const refresh = this.refreshThread(fold, thread, key).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, refresh);
    return refresh;
  }

  private async refreshThread(fold: AnyFold, thread: string, key: string): Promise<ThreadSlot> {
    let slot = this.threadCache.get(key);
    if (slot) {
      this.threadCache.delete(key); // re-insert below: Map order is the LRU order
    } else {
      slot = { state: fold.initial(thread), watermark: 0 };
    }
    let after = slot.watermark;
    for (;;) {
      const page = await this.store.listByThread(thread, { after, limit: 1000 });
      for (const stored of page.items) {
        slot.state = fold.apply(slot.state, stored);
        slot.watermark = stored.sequence;
      }
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    this.threadCache.set(key, slot);
    while (this.threadCache.size > this.threadCacheSize) {
      this.threadCache.delete(this.threadCache.keys().next().value!);
    }
    return slot;
  }
}

export const FoldEngineToken = token<FoldEngine>('core.FoldEngine');
