/**
 * Runs the registered folds. Global folds are brought up to the log at start
 * (from a verified checkpoint when the fold has one, else from the first
 * record) and then applied inline on every broadcast, so their value is
 * current when ingest answers. Thread folds are computed on demand and cached
 * (./thread-fold-cache.ts); checkpoints are kept by ./fold-checkpoints.ts.
 */
import { LoomError } from '../errors/loom-error.js';
import type { AnyFold, FoldAnswer } from '../folds/fold.js';
import type { LoomRecord } from '../records/record.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { token } from '../di/token.js';
import { SystemThreads } from './system-threads.js';
import type { RecordBus } from './broadcast.js';
import { FoldCheckpoints } from './fold-checkpoints.js';
import { FoldLoadingError } from './fold-loading-error.js';
import { FoldRouter } from './fold-router.js';
import type { GlobalFoldSlot as GlobalSlot } from './global-fold-slot.js';
import { logPages, recordPages } from './record-pages.js';
import { ThreadFoldCache } from './thread-fold-cache.js';

export interface FoldDescriptor {
  name: string;
  scope: 'thread' | 'global';
  description: string;
}

export interface FoldEngineOptions {
  /** Cached thread-fold states kept in memory. @default 5000 */
  readonly threadCacheSize?: number;
  /** Where global folds save checkpoints (`<dir>/<fold>.json`); null: never (every start replays the log). @default null */
  readonly checkpointDir?: string | null;
  /** A fold's checkpoint is rewritten once this many records were applied since the last one. @default 100000 */
  readonly checkpointEvery?: number;
  /** ... but at most this often. @default 60000 */
  readonly checkpointIntervalMs?: number;
  /**
   * A checkpoint at least this large (bytes) loads in the background after
   * `start()` returns, so the server can listen meanwhile; reading the fold
   * waits for it (FoldLoadingError), ingest waits for every fold. Null:
   * every checkpoint loads before `start()` returns. @default 8 MiB
   */
  readonly lazyCheckpointBytes?: number | null;
  readonly onError?: (error: unknown, context: string) => void;
  /** Start-up report: per global fold, where it resumed and what it replayed. */
  readonly onReplayed?: (report: FoldReplayReport) => void;
}

export interface FoldReplayReport {
  readonly fold: string;
  /** `checkpoint`: resumed from a verified checkpoint; `rebuilt`: replayed from the first record. */
  readonly from: 'checkpoint' | 'rebuilt';
  /** Why a checkpoint was not used, when one existed. */
  readonly discarded: string | null;
  readonly resumedAt: number;
  readonly watermark: number;
}

export class FoldEngine {
  private readonly folds = new Map<string, AnyFold>();
  private readonly globals = new Map<string, GlobalSlot>();
  private readonly threadFolds: ThreadFoldCache;
  private readonly checkpoints: FoldCheckpoints;
  /** The one definition of system threads (core/engine/system-threads.ts), shared with the log consumers. */
  readonly systemThreads = new SystemThreads();
  private started = false;
  private router: FoldRouter | null = null;
  private detach: (() => void) | null = null;
  private readonly onError: (error: unknown, context: string) => void;
  private readonly onReplayed: (report: FoldReplayReport) => void;
  private readonly lazyCheckpointBytes: number | null;
  /** Per fold loading in the background: resolves once it is loaded and caught up. */
  private readonly loading = new Map<string, { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void }>();
  private loader: Promise<void> | null = null;
  private stopping = false;

  constructor(
    private readonly store: RecordStore,
    private readonly bus: RecordBus,
    options: FoldEngineOptions = {},
  ) {
    this.onError = options.onError ?? (() => {});
    this.onReplayed = options.onReplayed ?? (() => {});
    this.lazyCheckpointBytes = options.lazyCheckpointBytes === undefined ? 8 * 1024 * 1024 : options.lazyCheckpointBytes;
    this.threadFolds = new ThreadFoldCache(store, options.threadCacheSize ?? 5000);
    this.checkpoints = new FoldCheckpoints(store, {
      dir: options.checkpointDir ?? null,
      every: options.checkpointEvery ?? 100_000,
      intervalMs: options.checkpointIntervalMs ?? 60_000,
      onError: this.onError,
    });
  }

  register(fold: AnyFold): void {
    if (this.started) throw new Error(`fold ${fold.name} registered after the fold engine started`);
    if (this.folds.has(fold.name)) throw new Error(`fold ${fold.name} is registered twice`);
    this.folds.set(fold.name, fold);
  }

  /** Declares a plugin's control thread: folds with `ignoresSystemThreads` skip it, as they skip the reserved threads. */
  registerSystemThread(thread: string): void {
    if (this.started) throw new Error(`system thread ${thread} declared after the fold engine started`);
    this.systemThreads.declare(thread);
  }

  /** The plugins' system threads (the reserved threads are RESERVED_THREADS). */
  systemThreadIds(): string[] {
    return this.systemThreads.ids();
  }

  isSystemThread(thread: string): boolean {
    return this.systemThreads.has(thread);
  }

  /** Whether `fold` reads records of `thread` at all. */
  reads(fold: AnyFold, thread: string): boolean {
    if (fold.threads) return fold.threads.includes(thread);
    return !(fold.ignoresSystemThreads && this.isSystemThread(thread));
  }

  /** Whether `record` reaches `fold` (its thread, and its kind when the fold names kinds): the router's rule, one fold at a time. */
  admits(fold: AnyFold, record: LoomRecord): boolean {
    if (!this.reads(fold, record.thread)) return false;
    if (!fold.kinds) return true;
    const kind = record.body['kind'];
    return typeof kind === 'string' && fold.kinds.includes(kind);
  }

  list(): FoldDescriptor[] {
    return [...this.folds.values()].map(({ name, scope, description }) => ({ name, scope, description }));
  }

  has(name: string): boolean {
    return this.folds.has(name);
  }

  /**
   * Brings every global fold up to the log (from its checkpoint when one is
   * valid, else from the first record), then follows the bus inline.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.systemThreads.freeze();
    const queued: StoredRecord[] = [];
    let replaying = true;
    // Attach first and queue, so nothing published during the replay is lost.
    this.detach = this.bus.addInlineListener((records) => {
      if (replaying) queued.push(...records);
      else this.applyGlobal(records);
    });
    const watermark = await this.store.watermark();
    const anchor = watermark === 0 ? null : ((await this.store.changesSince(watermark - 1, 1))[0]?.record.id ?? null);
    const scanned: GlobalSlot[] = [];
    const lazy: GlobalSlot[] = [];
    for (const fold of this.folds.values()) {
      if (fold.scope !== 'global') continue;
      const slot: GlobalSlot = { fold, state: fold.initial(fold.name), watermark: 0, anchor: null, savedWatermark: 0, lastCheckpointAt: Date.now(), serialiseMs: 0, watchers: new Set(), loaded: true };
      this.globals.set(fold.name, slot);
      if (this.loadsLazily(fold, await this.checkpoints.size(slot))) {
        slot.loaded = false;
        let resolve!: () => void;
        let reject!: (error: Error) => void;
        const promise = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
        promise.catch(() => undefined); // nobody may be waiting when a stop rejects it
        this.loading.set(fold.name, { promise, resolve, reject });
        lazy.push(slot);
        continue;
      }
      const discarded = await this.checkpoints.resume(slot, watermark);
      const resumedAt = slot.watermark;
      if (fold.threads && fold.threads.length === 1) {
        await this.replayThread(slot, fold.threads[0]!, watermark);
        slot.watermark = watermark;
        slot.anchor = anchor;
      } else {
        scanned.push(slot);
      }
      this.onReplayed({ fold: fold.name, from: resumedAt > 0 ? 'checkpoint' : 'rebuilt', discarded, resumedAt, watermark });
    }
    this.router = new FoldRouter(this.globals.values(), this.systemThreads);
    await this.replayScan(scanned, watermark);
    for (const slot of scanned) {
      slot.watermark = watermark;
      slot.anchor = anchor;
    }
    replaying = false;
    this.applyGlobal(queued);
    // A long replay is worth keeping: the next start resumes from here.
    for (const slot of this.globals.values()) if (slot.loaded && this.checkpoints.worthKeepingAfterReplay(slot)) this.checkpoints.save(slot);
    if (lazy.length > 0) this.loader = this.loadInBackground(lazy);
  }

  /** A fold with a large checkpoint (single-thread folds replay their thread, never a checkpoint's worth). */
  private loadsLazily(fold: AnyFold, checkpointBytes: number | null): boolean {
    if (this.lazyCheckpointBytes === null || checkpointBytes === null || checkpointBytes < this.lazyCheckpointBytes) return false;
    return !(fold.threads && fold.threads.length === 1);
  }

  /**
   * Loads the large checkpoints one after another, each followed by the log
   * after it, while the server answers. A fold becomes readable in the same
   * turn as its catch-up reaches the bus's position, so no publish falls
   * between its replay and the live path.
   */
  private async loadInBackground(slots: readonly GlobalSlot[]): Promise<void> {
    for (const slot of slots) {
      const waiting = this.loading.get(slot.fold.name)!;
      try {
        const discarded = await this.checkpoints.resume(slot, this.bus.position);
        const resumedAt = slot.watermark;
        for (;;) {
          if (this.stopping) throw new LoomError('SERVICE_UNAVAILABLE', `the server is stopping; fold ${slot.fold.name} was not loaded`);
          const head = this.bus.position;
          if (slot.watermark >= head) break;
          const page = await this.store.changesSince(slot.watermark, Math.min(5000, head - slot.watermark));
          if (page.length === 0) break;
          for (const stored of page) {
            if (stored.sequence <= slot.watermark) continue;
            if (this.admits(slot.fold, stored.record)) this.applyOne(slot, stored);
            slot.watermark = stored.sequence;
            slot.anchor = stored.record.id;
          }
        }
        // No await since the last check of the bus's position: from here the live path applies every publish.
        slot.loaded = true;
        this.loading.delete(slot.fold.name);
        waiting.resolve();
        this.onReplayed({ fold: slot.fold.name, from: resumedAt > 0 ? 'checkpoint' : 'rebuilt', discarded, resumedAt, watermark: slot.watermark });
        if (this.checkpoints.worthKeepingAfterReplay(slot)) this.checkpoints.save(slot);
      } catch (error) {
        for (const rest of slots.slice(slots.indexOf(slot))) {
          this.loading.get(rest.fold.name)?.reject(error instanceof Error ? error : new Error(String(error)));
          this.loading.delete(rest.fold.name);
        }
        if (!this.stopping) this.onError(error, `fold ${slot.fold.name}: loading its checkpoint failed; restart the server`);
        return;
      }
    }
  }

  /** Global folds still loading their checkpoint in the background. */
  loadingFolds(): string[] {
    return [...this.loading.keys()];
  }

  /** Resolves once `name` (every global fold, without a name) is loaded; rejects if the server stops first. */
  ready(name?: string): Promise<void> {
    if (name !== undefined) return this.loading.get(name)?.promise ?? Promise.resolve();
    if (this.loading.size === 0) return Promise.resolve();
    return Promise.all([...this.loading.values()].map((entry) => entry.promise)).then(() => undefined);
  }

  /** Whether `name` is still loading its checkpoint. */
  isLoading(name: string): boolean {
    return this.loading.has(name);
  }

  /**
   * The server is stopping: a fold still loading stays unloaded, and whoever
   * waits for one hears SERVICE_UNAVAILABLE now rather than after the load.
   */
  abortLoading(): void {
    this.stopping = true;
    const stopping = new LoomError('SERVICE_UNAVAILABLE', 'the server is stopping');
    for (const entry of this.loading.values()) entry.reject(stopping);
  }

  /** Null when every global fold is loaded (the common case, no await), else a promise of it. */
  whenAllLoaded(): Promise<void> | null {
    return this.loading.size === 0 ? null : this.ready();
  }

  /** Saves every checkpoint that is behind, then detaches from the bus; a fold still loading is left as it was. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.detach?.();
    this.detach = null;
    await this.loader;
    for (const slot of this.globals.values()) if (slot.loaded && slot.watermark > slot.savedWatermark) this.checkpoints.save(slot);
    await this.checkpoints.flush();
  }

  /** Replays one thread's records above the slot's watermark (folds that read a single thread). */
  private async replayThread(slot: GlobalSlot, thread: string, upTo: number): Promise<void> {
    for await (const page of recordPages((request) => this.store.listByThread(thread, request), { after: slot.watermark, upTo })) {
      for (const stored of page.items) if (this.admits(slot.fold, stored.record)) this.applyOne(slot, stored);
    }
  }

  /** One pass over the log for every other global fold, from the lowest watermark among them. */
  private async replayScan(slots: readonly GlobalSlot[], upTo: number): Promise<void> {
    if (slots.length === 0) return;
    const after = Math.min(...slots.map((slot) => slot.watermark));
    for await (const page of logPages((from, limit) => this.store.changesSince(from, limit), { after, limit: 5000, upTo })) {
      for (const stored of page) {
        for (const slot of slots) if (stored.sequence > slot.watermark && this.admits(slot.fold, stored.record)) this.applyOne(slot, stored);
      }
    }
  }

  private applyOne(slot: GlobalSlot, stored: StoredRecord): void {
    try {
      slot.state = slot.fold.apply(slot.state, stored);
    } catch (error) {
      this.onError(error, `fold ${slot.fold.name} failed on record ${stored.record.id}`);
    }
  }

  /**
   * Applies published records to the folds each reaches (the router), then
   * moves every fold's watermark to the last of them: a fold a record does
   * not reach still covers it.
   */
  private applyGlobal(records: readonly StoredRecord[]): void {
    if (records.length === 0 || !this.router) return;
    const touched = new Set<GlobalSlot>();
    for (const stored of records) {
      this.router.route(stored.record, (slot) => {
        // A slot already past it (records queued during the start-up replay overlap what it replayed), or still loading.
        if (stored.sequence <= slot.watermark || !slot.loaded) return;
        this.applyOne(slot, stored);
        touched.add(slot);
      });
    }
    const last = records[records.length - 1]!;
    for (const slot of this.globals.values()) {
      if (last.sequence <= slot.watermark || !slot.loaded) continue;
      slot.watermark = last.sequence;
      slot.anchor = last.record.id;
      // Also a fold no record reached: its checkpoint's watermark is where the next start's scan begins.
      if (this.checkpoints.due(slot)) this.checkpoints.save(slot);
    }
    for (const slot of touched) {
      if (slot.watchers.size > 0) {
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

  /** Folds `records` (ascending, already visibility-filtered) from the initial state: a private value for a restricted reader. */
  foldPrivately(fold: AnyFold, state: unknown, records: Iterable<StoredRecord>): unknown {
    for (const stored of records) {
      if (!this.admits(fold, stored.record)) continue;
      state = fold.apply(state, stored);
    }
    return state;
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

  /** The slot of a started, loaded global fold. */
  private loadedSlot(name: string): GlobalSlot {
    const slot = this.globals.get(name);
    if (!slot) throw new LoomError('SERVICE_UNAVAILABLE', `fold ${name} is not started yet`);
    if (!slot.loaded) {
      const waiting = this.loading.get(name);
      // Not loading any more and still not loaded: its load failed or the server is stopping (never a wait to retry).
      if (!waiting) throw new LoomError('SERVICE_UNAVAILABLE', `fold ${name} did not load its checkpoint (see the server's log); it loads at the next start`);
      throw new FoldLoadingError(name, waiting.promise);
    }
    return slot;
  }

  /** The current value of a global fold. */
  global<V>(name: string): FoldAnswer<V> {
    this.fold(name, 'global');
    const slot = this.loadedSlot(name);
    return { fold_name: name, cache_key: `${name}@${slot.watermark}${slot.fold.cacheSuffix?.() ?? ''}`, watermark: slot.watermark, value: slot.fold.value(slot.state) as V };
  }

  /** The live state of a global fold with the sequence it covers (read-only by convention). */
  globalSnapshot<S>(name: string): { state: S; watermark: number } {
    this.fold(name, 'global');
    const slot = this.loadedSlot(name);
    return { state: slot.state as S, watermark: slot.watermark };
  }

  /** The live state of a global fold, for in-process consumers (read-only by convention). */
  globalState<S>(name: string): S {
    return this.loadedSlot(name).state as S;
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
    const slot = await this.threadFolds.get(fold, thread);
    return { fold_name: name, cache_key: `${name}/${thread}@${slot.watermark}${fold.cacheSuffix?.() ?? ''}`, watermark: slot.watermark, value: fold.value(slot.state) as V };
  }

  /** A thread fold's raw state (a private copy is not made: do not mutate). */
  async threadState<S>(name: string, thread: string): Promise<{ state: S; watermark: number }> {
    const slot = await this.threadFolds.get(this.fold(name, 'thread'), thread);
    return { state: slot.state as S, watermark: slot.watermark };
  }
}

export const FoldEngineToken = token<FoldEngine>('core.FoldEngine');
