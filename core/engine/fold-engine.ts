/**
 * Runs the registered folds. Global folds are brought up to the log at start
 * (from a verified checkpoint when the fold has one, else from the first
 * record) and then applied inline on every broadcast, so their value is
 * current when ingest answers. Thread folds are computed on demand and cached; each read
 * applies only the records that arrived since the cached watermark, so a
 * cached value is always the full replay of the thread (tested).
 */
import { LoomError } from '../errors/loom-error.js';
import type { AnyFold, FoldAnswer } from '../folds/fold.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { token } from '../di/token.js';
import { SystemThreads } from './system-threads.js';
import type { RecordBus } from './broadcast.js';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

interface GlobalSlot {
  readonly fold: AnyFold;
  state: unknown;
  watermark: number;
  /** Id of the record at `watermark` (null at 0): a checkpoint's proof that the log it covers is this log. */
  anchor: string | null;
  /** Records applied since the last checkpoint. */
  sinceCheckpoint: number;
  lastCheckpointAt: number;
  /** How long the last checkpoint took to serialise (the event loop waits for it). */
  serialiseMs: number;
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
  /** Where global folds save checkpoints (`<dir>/<fold>.json`); null: never (every start replays the log). @default null */
  readonly checkpointDir?: string | null;
  /** A fold's checkpoint is rewritten once this many records were applied since the last one. @default 100000 */
  readonly checkpointEvery?: number;
  /** ... but at most this often. @default 60000 */
  readonly checkpointIntervalMs?: number;
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

/** The file a checkpoint is kept in: the fold's state with the sequence it covers. */
interface CheckpointFile {
  readonly fold: string;
  readonly version: number;
  readonly watermark: number;
  readonly anchor: string | null;
  readonly saved_at: string;
  readonly state: unknown;
}

export class FoldEngine {
  private readonly folds = new Map<string, AnyFold>();
  private readonly globals = new Map<string, GlobalSlot>();
  private readonly threadCache = new Map<string, ThreadSlot>();
  private readonly inFlight = new Map<string, Promise<ThreadSlot>>();
  /** The one definition of system threads (core/engine/system-threads.ts), shared with the log consumers. */
  readonly systemThreads = new SystemThreads();
  private started = false;
  private detach: (() => void) | null = null;
  private readonly threadCacheSize: number;
  private readonly checkpointDir: string | null;
  private readonly checkpointEvery: number;
  private readonly checkpointIntervalMs: number;
  private readonly onError: (error: unknown, context: string) => void;
  private readonly onReplayed: (report: FoldReplayReport) => void;
  private readonly saving = new Map<string, Promise<void>>();

  constructor(
    private readonly store: RecordStore,
    private readonly bus: RecordBus,
    options: FoldEngineOptions = {},
  ) {
    this.threadCacheSize = options.threadCacheSize ?? 5000;
    this.checkpointDir = options.checkpointDir ?? null;
    this.checkpointEvery = options.checkpointEvery ?? 100_000;
    this.checkpointIntervalMs = options.checkpointIntervalMs ?? 60_000;
    this.onError = options.onError ?? (() => {});
    this.onReplayed = options.onReplayed ?? (() => {});
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
    for (const fold of this.folds.values()) {
      if (fold.scope !== 'global') continue;
      const slot: GlobalSlot = { fold, state: fold.initial(fold.name), watermark: 0, anchor: null, sinceCheckpoint: 0, lastCheckpointAt: Date.now(), serialiseMs: 0, watchers: new Set() };
      this.globals.set(fold.name, slot);
      const discarded = await this.resume(slot, watermark);
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
    await this.replayScan(scanned, watermark);
    for (const slot of scanned) {
      slot.watermark = watermark;
      slot.anchor = anchor;
    }
    replaying = false;
    this.applyGlobal(queued);
    // A long replay is worth keeping: the next start resumes from here.
    for (const slot of this.globals.values()) if (slot.sinceCheckpoint >= this.checkpointEvery / 10) this.scheduleCheckpoint(slot);
  }

  /** Saves every checkpoint that is behind, then detaches from the bus. */
  async stop(): Promise<void> {
    this.detach?.();
    this.detach = null;
    for (const slot of this.globals.values()) if (slot.sinceCheckpoint > 0) this.scheduleCheckpoint(slot);
    await Promise.all([...this.saving.values()]);
  }

  /** Loads a verified checkpoint into the slot; answers why none was used when one existed. */
  private async resume(slot: GlobalSlot, storeWatermark: number): Promise<string | null> {
    const codec = slot.fold.checkpoint;
    if (!codec || this.checkpointDir === null) return null;
    let saved: CheckpointFile;
    try {
      saved = JSON.parse(await readFile(this.checkpointFile(slot.fold.name), 'utf8')) as CheckpointFile;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      return `unreadable: ${String(error)}`;
    }
    if (saved.fold !== slot.fold.name || saved.version !== codec.version) return `version ${saved.version}, code is at ${codec.version}`;
    if (!Number.isSafeInteger(saved.watermark) || saved.watermark < 0) return 'no valid watermark';
    if (saved.watermark > storeWatermark) return `covers sequence ${saved.watermark}, the log ends at ${storeWatermark}`;
    if (saved.watermark > 0) {
      const atMark = (await this.store.changesSince(saved.watermark - 1, 1))[0];
      if (!atMark || atMark.sequence !== saved.watermark || atMark.record.id !== saved.anchor) return `record ${saved.watermark} is not the one it was taken at (another log)`;
    }
    try {
      slot.state = codec.load(saved.state);
    } catch (error) {
      slot.state = slot.fold.initial(slot.fold.name);
      return `state did not load: ${String(error)}`;
    }
    slot.watermark = saved.watermark;
    slot.anchor = saved.anchor;
    return null;
  }

  private checkpointFile(name: string): string {
    return join(this.checkpointDir!, `${name}.json`);
  }

  /**
   * Serialises now (so state and watermark agree) and writes in the
   * background: temporary file, then rename, so a crash leaves the previous
   * checkpoint or the new one, never half of one.
   */
  private scheduleCheckpoint(slot: GlobalSlot): void {
    const codec = slot.fold.checkpoint;
    if (!codec || this.checkpointDir === null || this.saving.has(slot.fold.name)) return;
    let text: string;
    const began = performance.now();
    try {
      const file: CheckpointFile = { fold: slot.fold.name, version: codec.version, watermark: slot.watermark, anchor: slot.anchor, saved_at: new Date().toISOString(), state: codec.save(slot.state) };
      text = JSON.stringify(file);
    } catch (error) {
      this.onError(error, `fold ${slot.fold.name}: checkpoint not taken`);
      return;
    }
    slot.serialiseMs = performance.now() - began;
    slot.sinceCheckpoint = 0;
    slot.lastCheckpointAt = Date.now();
    const target = this.checkpointFile(slot.fold.name);
    const temporary = `${target}.${process.pid}.tmp`;
    const write = (async () => {
      await mkdir(this.checkpointDir!, { recursive: true });
      await writeFile(temporary, text);
      await rename(temporary, target);
    })()
      .catch((error) => this.onError(error, `fold ${slot.fold.name}: checkpoint not written`))
      .finally(() => this.saving.delete(slot.fold.name));
    this.saving.set(slot.fold.name, write);
  }

  /**
   * Serialising holds the event loop (a 1M-verdict trust state takes seconds),
   * so a state that is slow to serialise is saved less often: at most 0.5%
   * of the time goes to periodic checkpoints. Stop and start always save.
   */
  private checkpointDue(slot: GlobalSlot): boolean {
    return Date.now() - slot.lastCheckpointAt >= Math.max(this.checkpointIntervalMs, slot.serialiseMs * 200);
  }

  /** Replays one thread's records above the slot's watermark (folds that read a single thread). */
  private async replayThread(slot: GlobalSlot, thread: string, upTo: number): Promise<void> {
    let after = 0;
    for (;;) {
      const page = await this.store.listByThread(thread, { after, limit: 1000 });
      for (const stored of page.items) if (stored.sequence > slot.watermark && stored.sequence <= upTo) this.applyOne(slot, stored);
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
  }

  /** One pass over the log for every other global fold, from the lowest watermark among them. */
  private async replayScan(slots: readonly GlobalSlot[], upTo: number): Promise<void> {
    if (slots.length === 0) return;
    let after = Math.min(...slots.map((slot) => slot.watermark));
    while (after < upTo) {
      const page = await this.store.changesSince(after, 5000);
      if (page.length === 0) break;
      for (const stored of page) {
        if (stored.sequence > upTo) break;
        for (const slot of slots) if (stored.sequence > slot.watermark && this.reads(slot.fold, stored.record.thread)) this.applyOne(slot, stored);
      }
      after = page[page.length - 1]!.sequence;
    }
  }

  private applyOne(slot: GlobalSlot, stored: StoredRecord): void {
    try {
      slot.state = slot.fold.apply(slot.state, stored);
      slot.sinceCheckpoint++;
    } catch (error) {
      this.onError(error, `fold ${slot.fold.name} failed on record ${stored.record.id}`);
    }
  }

  private applyGlobal(records: readonly StoredRecord[]): void {
    for (const slot of this.globals.values()) {
      let touched = false;
      for (const stored of records) {
        if (stored.sequence <= slot.watermark) continue;
        slot.watermark = stored.sequence;
        slot.anchor = stored.record.id;
        if (!this.reads(slot.fold, stored.record.thread)) continue;
        this.applyOne(slot, stored);
        touched = true;
      }
      if (touched && slot.sinceCheckpoint >= this.checkpointEvery && this.checkpointDue(slot)) this.scheduleCheckpoint(slot);
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

  /** Folds `records` (ascending, already visibility-filtered) from the initial state: a private value for a restricted reader. */
  foldPrivately(fold: AnyFold, state: unknown, records: Iterable<StoredRecord>): unknown {
    for (const stored of records) {
      if (!this.reads(fold, stored.record.thread)) continue;
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

  /** The current value of a global fold. */
  global<V>(name: string): FoldAnswer<V> {
    this.fold(name, 'global');
    const slot = this.globals.get(name);
    if (!slot) throw new LoomError('SERVICE_UNAVAILABLE', `fold ${name} is not started yet`);
    return { fold_name: name, cache_key: `${name}@${slot.watermark}${slot.fold.cacheSuffix?.() ?? ''}`, watermark: slot.watermark, value: slot.fold.value(slot.state) as V };
  }

  /** The live state of a global fold with the sequence it covers (read-only by convention). */
  globalSnapshot<S>(name: string): { state: S; watermark: number } {
    this.fold(name, 'global');
    const slot = this.globals.get(name);
    if (!slot) throw new LoomError('SERVICE_UNAVAILABLE', `fold ${name} is not started yet`);
    return { state: slot.state as S, watermark: slot.watermark };
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
    return { fold_name: name, cache_key: `${name}/${thread}@${slot.watermark}${fold.cacheSuffix?.() ?? ''}`, watermark: slot.watermark, value: fold.value(slot.state) as V };
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
