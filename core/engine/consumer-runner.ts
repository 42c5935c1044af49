/**
 * Runs one log consumer (core/engine/log-consumer.ts): the engine starts it
 * as a loop (a leader-only consumer as a singleton loop, so it runs while
 * this server holds the leader lease) and stops it before the store closes.
 *
 * Records are read from the store after the cursor but never past what the
 * bus has published, so a consumer sees a record only after the folds have
 * applied it (as a bus subscriber would).
 */
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import type { RecordBus } from './broadcast.js';
import type { EngineLoop } from './engine-loop.js';
import type { ConsumerHandle, ConsumerState, ConsumerStatus, LogConsumer } from './log-consumer.js';
import type { LoopCheckpoint } from './loop-checkpoint.js';
import { LiveTail } from './live-tail.js';
import { LoopWaits } from './loop-waits.js';
import type { SystemThreads } from './system-threads.js';

const DEFAULT_BATCH = 256;
const DEFAULT_BACKOFF = { initialMs: 250, maxMs: 30_000 };
/** How long a caught-up consumer sleeps when nothing wakes it (a lost wake-up costs at most this). */
const IDLE_SLEEP_MS = 30_000;
/** How often a settling checkpoint (`settledThrough`) is saved between batches. */
const SETTLE_SAVE_MS = 1_000;
/**
 * At most one checkpoint write per this many ms while batches keep coming
 * (single-record ingest makes a batch per record). A kill -9 hands over at
 * most this much again, which the contract allows (at least once).
 */
const SAVE_EVERY_MS = 200;
/** Live records kept for a consumer that keeps up, in batches (core/engine/live-tail.ts). */
const TAIL_BATCHES = 4;

export interface ConsumerRunnerDeps {
  readonly plugin: string;
  readonly store: RecordStore;
  readonly bus: RecordBus;
  readonly systemThreads: SystemThreads;
  /** Null: no checkpoint kept (core/engine/loop-checkpoint.ts). */
  readonly checkpoint: LoopCheckpoint | null;
  readonly onError: (error: unknown, context: string) => void;
  /** Whether the engine's loops run (a leader-only consumer not running then stands by). */
  readonly engaged: () => boolean;
}

export class ConsumerRunner implements EngineLoop, ConsumerHandle {
  readonly name: string;
  readonly singleton: boolean;
  private position = 0;
  /** Bumped by `rewind`, so a batch read before it does not move the new cursor. */
  private generation = 0;
  private running = false;
  private waits: LoopWaits | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | null = null;
  private settleTimer: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();
  private saveQueued = false;
  private saveTimer: NodeJS.Timeout | null = null;
  private lastSaveAt = -Infinity;
  private saved: number | null = null;
  private tail: LiveTail | null = null;
  private state: ConsumerState = 'stopped';
  private idleLeft = false;
  private batches = 0;
  private records = 0;
  private failures = 0;
  private lastError: { at: string; message: string } | null = null;
  /** The page a failed batch was read from: the retry hands over exactly it. */
  private failed: { generation: number; after: number; page: StoredRecord[] } | null = null;

  constructor(
    private readonly consumer: LogConsumer,
    private readonly deps: ConsumerRunnerDeps,
  ) {
    this.name = `${deps.plugin}.${consumer.name}`;
    this.singleton = consumer.leaderOnly === true;
  }

  get cursor(): number {
    return this.position;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const checkpoint = this.deps.checkpoint;
    const saved = checkpoint ? await checkpoint.read().catch((error: unknown) => (this.deps.onError(error, `consumer ${this.name}: checkpoint not read`), null)) : null;
    const head = this.deps.bus.position;
    const after = saved !== null && saved <= head ? saved : await this.startPosition(head);
    this.position = after;
    this.generation++;
    // Said at once: with a shared log, a successor taking over before the first batch must resume here, not at its own head.
    if (checkpoint && saved !== after) await this.write(after);
    else this.saved = saved;
    await this.consumer.start?.();
    this.running = true;
    const waits = (this.waits = new LoopWaits());
    const tail = (this.tail = new LiveTail((this.consumer.batchSize ?? DEFAULT_BATCH) * TAIL_BATCHES));
    const bus = this.deps.bus;
    this.unsubscribe = bus.addInlineListener((records) => {
      // Inline listeners run before the bus moves its position: `bus.position` is where these records start.
      if (this.passesOver(records, bus.position)) return;
      tail.offer(records, bus.position);
      waits.notePublished();
      waits.poke();
    });
    if (checkpoint && this.consumer.settledThrough) {
      this.settleTimer = setInterval(() => void this.save(), SETTLE_SAVE_MS);
      this.settleTimer.unref();
    }
    this.state = 'running';
    this.loopDone = this.loop(waits);
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.settleTimer) clearInterval(this.settleTimer);
    this.settleTimer = null;
    this.waits?.stop();
    this.tail?.clear();
    this.tail = null;
    await this.loopDone;
    try {
      await this.consumer.stop?.();
    } catch (error) {
      this.deps.onError(error, `consumer ${this.name}: stop failed`);
    }
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    await this.save();
    this.state = 'stopped';
  }

  wake(): void {
    this.waits?.interrupt();
  }

  rewind(after: number): void {
    this.generation++;
    this.position = after;
    this.idleLeft = true;
    this.waits?.interrupt();
  }

  async caughtUp(): Promise<void> {
    while (this.running && (this.position < this.deps.bus.position || this.idleLeft || this.state !== 'caught_up')) {
      this.waits?.poke();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  status(): ConsumerStatus {
    const head = Math.max(this.deps.bus.position, this.position);
    const state = this.running ? this.state : this.singleton && this.deps.engaged() ? 'standby' : 'stopped';
    return {
      name: this.name,
      plugin: this.deps.plugin,
      state,
      leader_only: this.singleton,
      cursor: this.position,
      head,
      lag: head - this.position,
      checkpoint: this.saved,
      batches: this.batches,
      records: this.records,
      consecutive_failures: this.failures,
      last_error: this.lastError,
    };
  }

  /** Whether the consumer acts on `stored` (its thread, then its own interest). */
  private concerns(stored: StoredRecord): boolean {
    if (this.consumer.systemThreads !== 'include' && this.deps.systemThreads.has(stored.record.thread)) return false;
    return this.consumer.wants ? this.consumer.wants(stored.record) : true;
  }

  /**
   * A caught-up consumer and a publish of records none of which concern it:
   * the cursor moves past them here, with no batch, no wake-up and no store
   * read (the checkpoint follows, debounced as after a batch). Anything else
   * (a consumer behind, backing off, rewound, or a record it wants) goes the
   * usual way, through the tail and the loop.
   */
  private passesOver(records: readonly StoredRecord[], publishedBefore: number): boolean {
    if (this.state !== 'caught_up' || this.idleLeft || this.failed !== null || this.position !== publishedBefore || records.length === 0) return false;
    for (const stored of records) if (this.concerns(stored)) return false;
    this.position = records[records.length - 1]!.sequence;
    this.saveSoon();
    return true;
  }

  private async startPosition(head: number): Promise<number> {
    const start = this.consumer.startAt ?? 'head';
    if (start === 'head') return head;
    if (start === 'start') return 0;
    return typeof start.after === 'function' ? await start.after() : start.after;
  }

  private async loop(waits: LoopWaits): Promise<void> {
    const consumer = this.consumer;
    const batchSize = consumer.batchSize ?? DEFAULT_BATCH;
    const share = consumer.busyShare ?? 1;
    const include = consumer.systemThreads === 'include';
    let recheck = true;
    while (this.running) {
      try {
        const started = performance.now();
        const generation = this.generation;
        const from = this.position;
        const published = this.deps.bus.position;
        const retry = this.failed !== null && this.failed.generation === generation && this.failed.after === from ? this.failed.page : null;
        this.failed = null;
        const page = retry ?? (await this.read(from, published, batchSize));
        if (page.length > 0) {
          recheck = true;
          this.state = 'running';
          const records = include && !consumer.wants ? page : page.filter((stored: StoredRecord) => this.concerns(stored));
          const through = page[page.length - 1]!.sequence;
          try {
            await consumer.handle(records, { after: from, through });
          } catch (error) {
            this.failed = { generation, after: from, page };
            throw error;
          }
          if (generation === this.generation) this.position = through;
          this.batches++;
          this.records += records.length;
          this.failures = 0;
          // Not awaited: the next batch is read while the checkpoint is written (one write at a time, the latest position).
          this.saveSoon();
          if (consumer.idle) await consumer.idle({ caughtUp: false, busy: waits.busy });
          // While records keep arriving, the consumer takes at most `busyShare` of the time (ingest comes first).
          await waits.yieldAfter(started, share);
          await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        if (generation !== this.generation) continue;
        const again = consumer.idle ? await consumer.idle({ caughtUp: true, busy: waits.busy }) : null;
        this.failures = 0;
        this.idleLeft = again !== null;
        this.state = 'caught_up';
        if (again === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        // Records published while `idle` awaited poked no sleep: read them now rather than sleep through them (once: never a spin).
        else if (recheck && this.deps.bus.position > this.position) {
          recheck = false;
          continue;
        }
        else await waits.sleep(again ?? IDLE_SLEEP_MS);
      } catch (error) {
        this.failures++;
        this.state = 'backing_off';
        this.lastError = { at: new Date().toISOString(), message: error instanceof Error ? error.message : String(error) };
        const delay = this.backoff();
        if (this.failures === 1 || this.failures % 20 === 0) this.deps.onError(error, `consumer ${this.name} failed (${this.failures} in a row); retrying in ${delay} ms`);
        // A pause, not a sleep: new records do not cut a backoff short (that would retry per record); wake() does.
        await waits.pause(delay);
      }
    }
  }

  /** The batch after `from`: from the live tail when the consumer keeps up, else from the store (never past `published`). */
  private async read(from: number, published: number, batchSize: number): Promise<StoredRecord[]> {
    if (from >= published) return [];
    const live = this.tail?.take(from, batchSize);
    if (live && live.length > 0) return live;
    return (await this.deps.store.changesSince(from, batchSize)).filter((stored) => stored.sequence <= published);
  }

  private backoff(): number {
    const { initialMs, maxMs } = this.consumer.backoff ?? DEFAULT_BACKOFF;
    const base = Math.min(maxMs, initialMs * 2 ** Math.min(this.failures - 1, 30));
    return Math.round(base * (0.75 + Math.random() * 0.5));
  }

  /** Starts a save unless one is waiting to start (it will write the latest position), at most one per SAVE_EVERY_MS. */
  private saveSoon(): void {
    if (this.saveQueued) return;
    this.saveQueued = true;
    const wait = this.lastSaveAt + SAVE_EVERY_MS - performance.now();
    if (wait <= 0) {
      void this.save();
      return;
    }
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      void this.save();
    }, wait);
    this.saveTimer.unref();
  }

  /** Saves the checkpoint if it moved: the cursor, held back to what the consumer has settled. */
  private save(): Promise<void> {
    if (!this.deps.checkpoint) return Promise.resolve();
    this.saving = this.saving.then(async () => {
      this.saveQueued = false;
      this.lastSaveAt = performance.now();
      const handled = this.position;
      const through = this.consumer.settledThrough ? Math.min(handled, this.consumer.settledThrough(handled)) : handled;
      if (through !== this.saved) await this.write(through);
    });
    return this.saving;
  }

  private async write(through: number): Promise<void> {
    try {
      await this.deps.checkpoint!.write(through);
      this.saved = through;
    } catch (error) {
      this.deps.onError(error, `consumer ${this.name}: checkpoint not saved`);
    }
  }
}
