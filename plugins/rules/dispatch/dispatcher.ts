/**
 * RECONCILE's executor: a bounded queue of dispatch work and a fixed number
 * of slots (spec §8: 4 by default). A job that routing or a trigger produced
 * is checked against the dispatch holds (fleet freeze, emergency stop), its
 * dispatch record is written by the engine, and the chosen adapter delivers
 * it, all inside one slot. A manual dispatch (POST /v1/dispatch) was already
 * written by its caller and only needs delivery. Producers wait for room, so
 * the queue never grows past its capacity: back-pressure reaches the bus
 * subscription, which falls back to reading the store and loses nothing.
 */
import { SYSTEM } from '../../../core/access/caller.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { dispatchThreadId } from '../../../core/records/thread-id.js';
import type { Logger } from '../../../core/plugin/logger.js';
import { token } from '../../../core/di/token.js';
import type { AdapterRegistry, Dispatch } from './adapter.js';
import { sourceKey, type DispatchState } from './dispatch-fold.js';
import { ENGINE_ACTOR, KIND_DISPATCH, KIND_DISPATCH_FAILED, type DispatchBudget, type DispatchOrigin } from './dispatch-kinds.js';

/** Work RECONCILE decided on: dispatch `target` because of `parentRecord`. */
export interface DispatchJob {
  readonly target: string;
  readonly goal: string;
  readonly parentThread: string;
  /** The record that caused the dispatch (its parent), or null (a schedule has a config record here). */
  readonly parentRecord: string | null;
  readonly namespace: string;
  readonly budget: DispatchBudget;
  readonly origin: DispatchOrigin;
  /** Dispatch a source record at most once per origin (routing, match triggers); false for schedules, whose parent is their configuration record. @default true */
  readonly once?: boolean;
}

/** Why a job may not be dispatched now (a fleet freeze, the emergency stop), or null. */
export type DispatchHold = (job: Pick<DispatchJob, 'namespace' | 'target' | 'origin'>) => string | null;

type Work = { readonly kind: 'job'; readonly job: DispatchJob; readonly settled: () => void; readonly written: () => void } | { readonly kind: 'deliver'; readonly record: LoomRecord; readonly settled: () => void };

export interface DispatcherOptions {
  readonly concurrency: number;
  readonly queueCapacity: number;
  readonly now?: () => number;
}

export interface DispatcherStats {
  queue_depth: number;
  queue_capacity: number;
  max_queue_depth: number;
  in_flight: number;
  max_in_flight: number;
  concurrency: number;
  dispatched: number;
  delivered: number;
  delivery_failures: number;
  held: number;
  duplicates_skipped: number;
}

export class Dispatcher {
  private readonly queue: Work[] = [];
  private readonly holds: Array<{ name: string; hold: DispatchHold }> = [];
  private readonly roomWaiters: Array<() => void> = [];
  private readonly workWaiters: Array<() => void> = [];
  private readonly workers: Promise<void>[] = [];
  private running = false;
  private inFlight = 0;
  private lastDispatchMs = 0;
  private readonly counters = { max_queue_depth: 0, max_in_flight: 0, dispatched: 0, delivered: 0, delivery_failures: 0, held: 0, duplicates_skipped: 0 };
  private readonly now: () => number;

  constructor(
    private readonly writer: RecordWriter,
    /** The rules plugin's own dispatch fold. */
    private readonly dispatches: Pick<OwnFold<DispatchState>, 'state'>,
    private readonly adapters: AdapterRegistry,
    private readonly log: Logger,
    private readonly onError: (context: string, error: unknown) => void,
    private readonly options: DispatcherOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  addHold(name: string, hold: DispatchHold): void {
    this.holds.push({ name, hold });
  }

  /** The first hold that stops this job, as `<hold>: <reason>`, or null. */
  heldBy(job: Pick<DispatchJob, 'namespace' | 'target' | 'origin'>): string | null {
    for (const { name, hold } of this.holds) {
      const reason = hold(job);
      if (reason !== null) return `${name}: ${reason}`;
    }
    return null;
  }

  private state(): DispatchState {
    return this.dispatches.state();
  }

  /** Whether this record was already dispatched for this origin (a replay after restart). */
  alreadyDispatched(source: string, origin: DispatchOrigin): boolean {
    return this.state().bySource.has(sourceKey(source, origin));
  }

  get hasRoom(): boolean {
    return this.queue.length < this.options.queueCapacity;
  }

  /**
   * Queues a job, waiting while the queue is full. `written` runs once its
   * dispatch record is in the log (or it was held, skipped or failed before
   * that): from then on the dispatches fold accounts for it. `settled` runs
   * once it is delivered, held or failed.
   */
  async enqueue(job: DispatchJob, settled: () => void = () => {}, written: () => void = () => {}): Promise<void> {
    while (!this.hasRoom) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    this.push({ kind: 'job', job, settled, written });
  }

  /** Queues delivery of a dispatch record already written (POST /v1/dispatch); false when the queue is full. */
  offerDelivery(record: LoomRecord): boolean {
    if (!this.hasRoom) return false;
    this.push({ kind: 'deliver', record, settled: () => {} });
    return true;
  }

  private push(work: Work): void {
    this.queue.push(work);
    this.counters.max_queue_depth = Math.max(this.counters.max_queue_depth, this.queue.length);
    this.workWaiters.shift()?.();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    for (let slot = 0; slot < this.options.concurrency; slot++) this.workers.push(this.work());
  }

  /** Stops taking work once the dispatches in flight finish; queued work stays undone (its records are re-read after a restart). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    for (const wake of this.workWaiters.splice(0)) wake();
    for (const wake of this.roomWaiters.splice(0)) wake();
    await Promise.all(this.workers.splice(0));
  }

  private async work(): Promise<void> {
    while (this.running) {
      const next = this.queue.shift();
      if (!next) {
        await new Promise<void>((resolve) => this.workWaiters.push(resolve));
        continue;
      }
      this.roomWaiters.shift()?.();
      this.inFlight++;
      this.counters.max_in_flight = Math.max(this.counters.max_in_flight, this.inFlight);
      try {
        if (next.kind === 'job') await this.run(next.job, next.written);
        else await this.deliver(next.record);
      } catch (error) {
        this.onError('dispatch failed', error);
      } finally {
        this.inFlight--;
        if (next.kind === 'job') next.written();
        next.settled();
      }
    }
  }

  private async run(job: DispatchJob, written: () => void): Promise<void> {
    const held = this.heldBy(job);
    if (held !== null) {
      this.counters.held++;
      this.log.log('info', 'dispatch held', { target: job.target, origin: job.origin, namespace: job.namespace, hold: held });
      return;
    }
    if (job.parentRecord !== null && job.once !== false && this.alreadyDispatched(job.parentRecord, job.origin)) {
      this.counters.duplicates_skipped++;
      return;
    }
    const record = await this.write(job);
    written();
    await this.deliver(record);
  }

  /** Writes the dispatch record (engine actor, clock 0 on a fresh dispatch thread). */
  private async write(job: DispatchJob): Promise<LoomRecord> {
    // Strictly increasing dispatch times, so two dispatches of one parent thread to one target never derive the same thread.
    const atMs = Math.max(this.now(), this.lastDispatchMs + 1);
    this.lastDispatchMs = atMs;
    const dispatchedAt = new Date(atMs).toISOString();
    const adapter = this.adapters.select(job.target);
    const body: JsonObject = {
      kind: KIND_DISPATCH,
      dispatch_handled: true,
      target: job.target,
      goal: job.goal,
      parent_thread: job.parentThread,
      dispatched_at: dispatchedAt,
      budget: { ...job.budget },
      origin: { ...job.origin },
      source: job.parentRecord,
      adapter: adapter.name,
    };
    if (job.namespace !== 'default') body['namespace'] = job.namespace;
    const { stored } = await this.writer.appendAs(SYSTEM, {
      thread: dispatchThreadId(job.parentThread, job.target, dispatchedAt),
      actor: ENGINE_ACTOR,
      act: 'DO',
      body,
      parents: job.parentRecord === null ? [] : [job.parentRecord],
    });
    this.counters.dispatched++;
    return stored.record;
  }

  private async deliver(record: LoomRecord): Promise<void> {
    const dispatch = dispatchOf(record);
    const adapter = this.adapters.select(dispatch.target);
    try {
      await adapter.deliver(dispatch);
      this.counters.delivered++;
    } catch (error) {
      this.counters.delivery_failures++;
      const message = error instanceof Error ? error.message : String(error);
      this.log.log('warn', 'dispatch delivery failed', { adapter: adapter.name, dispatch: dispatch.id, target: dispatch.target, error: message });
      await this.noteOnThread(record.thread, { kind: KIND_DISPATCH_FAILED, dispatch_handled: true, dispatch: record.id, adapter: adapter.name, error: message.slice(0, 2000) }, [record.id]);
    }
  }

  /** Appends an engine KNOW to a dispatch thread at the engine's next clock there (in the thread's namespace). */
  async noteOnThread(thread: string, body: JsonObject, parents: readonly string[]): Promise<void> {
    await this.writer.appendAs(SYSTEM, { thread, actor: ENGINE_ACTOR, act: 'KNOW', body, parents });
  }

  stats(): DispatcherStats {
    return {
      queue_depth: this.queue.length,
      queue_capacity: this.options.queueCapacity,
      in_flight: this.inFlight,
      concurrency: this.options.concurrency,
      ...this.counters,
    };
  }

  get activeDispatches(): number {
    return this.inFlight;
  }
}

/** The adapter's view of a dispatch record. */
export function dispatchOf(record: LoomRecord): Dispatch {
  const body = record.body as Record<string, unknown>;
  return {
    id: record.id,
    thread: record.thread,
    target: String(body['target']),
    goal: String(body['goal'] ?? ''),
    parent_thread: String(body['parent_thread'] ?? ''),
    source: typeof body['source'] === 'string' ? body['source'] : null,
    namespace: typeof body['namespace'] === 'string' ? body['namespace'] : 'default',
    budget: body['budget'] as unknown as DispatchBudget,
    origin: body['origin'] as unknown as DispatchOrigin,
    record,
  };
}

export const DispatcherToken = token<Dispatcher>('rules.Dispatcher');
