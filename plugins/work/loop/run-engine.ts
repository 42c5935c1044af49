/**
 * The runs this server drives. A run starts when its opening record is on
 * the log: the start doors write it, and the engine's log consumer (on the
 * leader of a shared log) hands it to a RunDriver. On start the engine
 * resumes every run the run index shows without an outcome, from its
 * thread. A cancel record on a run's thread (from any server) aborts its
 * provider stream at once; a stop aborts every run without an outcome, so
 * the next start resumes them.
 *
 * A run waiting on a person (a decision) is not driven at all: its driver
 * returned. The answer's record (a `core.work.decision_answer.v1`) drives it
 * again, and so does a cancel (its driver then writes the cancelled
 * outcome and withdraws the ask). An answer or cancel that lands while the
 * driver is still letting go marks the run to be driven again at once, so
 * no answer is ever missed.
 */
import type { Logger } from '../../../core/plugin/logger.js';
import type { LogConsumer } from '../../../core/engine/log-consumer.js';
import type { StoredRecord } from '../../../storage/contract/stored-record.js';
import { KIND_DECISION_ANSWER, KIND_LOOP_CANCEL, KIND_RUN } from '../../members/index.js';
import { ceilingsOf } from './ceilings.js';
import { RunDriver, type DriverDeps, type StopReason } from './run-driver.js';

/** What the runs consumer acts on: a run's opening, its cancel, and answers to its decisions. */
const RUN_ENGINE_KINDS: ReadonlySet<string> = new Set([KIND_RUN, KIND_LOOP_CANCEL, KIND_DECISION_ANSWER]);

interface ActiveRun {
  readonly driver: RunDriver;
  readonly controller: AbortController;
  readonly done: Promise<void>;
  wallClock: NodeJS.Timeout | null;
  readonly opening: Readonly<Record<string, unknown>>;
  readonly startedAt: number | null;
  /** Something the run reacts to landed while it was driven (an answer, a cancel): drive it again once this driver lets go. */
  wake: boolean;
}

export interface RunEngineDeps extends DriverDeps {
  /** Threads of runs the run index shows without an outcome, oldest first. */
  readonly openRuns: () => { thread: string; startedAt: number | null; opening: Readonly<Record<string, unknown>> }[];
  /** Whether the run index shows this run without an outcome. */
  readonly isOpen: (thread: string) => boolean;
  /** One run the index shows without an outcome (by thread), or undefined. */
  readonly openRun?: (thread: string) => { thread: string; startedAt: number | null; opening: Readonly<Record<string, unknown>> } | undefined;
}

export class RunEngine {
  private readonly active = new Map<string, ActiveRun>();
  private stopping = false;
  /** Each driven run's end, for tests and the benchmark. */
  private readonly listeners = new Set<(thread: string) => void>();

  constructor(private readonly deps: RunEngineDeps & { readonly log: Logger }) {}

  /** The runs this server is driving. */
  get driving(): number {
    return this.active.size;
  }

  isDriving(thread: string): boolean {
    return this.active.has(thread);
  }

  /** Starts driving a run whose opening record is stored (idempotent: a run already driven, or ended, is left alone). */
  launch(thread: string, opening: Readonly<Record<string, unknown>>, startedAt: number | null): void {
    if (this.stopping || this.active.has(thread)) return;
    const controller = new AbortController();
    const run: ActiveRun = { driver: null as unknown as RunDriver, controller, wallClock: null, done: Promise.resolve(), opening, startedAt, wake: false };
    // The driver arms the wall clock once it has read the run: time waited on people does not count.
    const arm = (left: number) => {
      if (run.wallClock) clearTimeout(run.wallClock);
      run.wallClock = setTimeout(() => this.abort(thread, 'wall_clock'), Math.max(0, left));
      run.wallClock.unref();
    };
    const driver = new RunDriver(thread, this.deps, controller.signal, ceilingsOf(opening).wall_clock_secs === null ? undefined : arm);
    (run as { driver: RunDriver }).driver = driver;
    this.active.set(thread, run);
    (run as { done: Promise<void> }).done = driver
      .drive()
      .catch((error: unknown) => {
        this.deps.log.log('error', 'run stopped by an error', { thread, error: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => {
        if (run.wallClock) clearTimeout(run.wallClock);
        this.active.delete(thread);
        for (const listener of this.listeners) listener(thread);
        if (run.wake && !this.stopping && this.deps.isOpen(thread)) this.launch(thread, run.opening, run.startedAt);
      });
  }

  /** Drives a run again (an answer or a cancel landed): at once when not driven here, else once its driver lets go. */
  wake(thread: string): void {
    const run = this.active.get(thread);
    if (run) {
      run.wake = true;
      return;
    }
    const entry = this.deps.openRun ? this.deps.openRun(thread) : this.deps.openRuns().find((open) => open.thread === thread);
    if (entry) this.launch(entry.thread, entry.opening, entry.startedAt);
  }

  /** Aborts a run's provider stream or tool now; the driver then records the outcome the reason calls for. */
  abort(thread: string, reason: StopReason): boolean {
    const run = this.active.get(thread);
    if (!run) return false;
    if (run.driver.stopReason === null || reason === 'shutdown') run.driver.stopReason = reason;
    // A cancel meeting a driver that is letting go of a waiting run: drive it again to end it.
    if (reason === 'cancel') run.wake = true;
    run.controller.abort(reason);
    return true;
  }

  /** Resolves when the run is no longer driven here (ended, or stopped). */
  async settled(thread: string): Promise<void> {
    await this.active.get(thread)?.done;
  }

  onEnded(listener: (thread: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resumes every run without an outcome (the engine just started, or took the lead). */
  resumeOpenRuns(): void {
    for (const run of this.deps.openRuns()) this.launch(run.thread, run.opening, run.startedAt);
  }

  /** Aborts every run without writing an outcome and waits for the drivers to let go. */
  async stop(): Promise<void> {
    this.stopping = true;
    const runs = [...this.active.entries()];
    for (const [thread] of runs) this.abort(thread, 'shutdown');
    await Promise.all(runs.map(([, run]) => run.done));
  }

  /** Leadership regained (or a fresh start after stop). */
  restart(): void {
    this.stopping = false;
  }

  /**
   * The kernel log consumer that drives runs: an opening record launches
   * its run; a cancel aborts it; a person's message wakes nothing (the next
   * model call reads it). Leader-only on a shared log, so one server drives
   * each run.
   */
  consumer(): LogConsumer {
    return {
      name: 'runs',
      leaderOnly: true,
      startAt: 'head',
      start: () => {
        this.restart();
        this.resumeOpenRuns();
      },
      stop: () => this.stop(),
      // A run's opening, cancel and answers: every other record passes it by without a wake-up.
      wants: (record) => RUN_ENGINE_KINDS.has(record.body['kind'] as string),
      handle: async (records: readonly StoredRecord[]) => {
        for (const stored of records) {
          const kind = stored.record.body['kind'];
          if (kind === KIND_RUN) {
            if (this.deps.isOpen(stored.record.thread)) this.launch(stored.record.thread, stored.record.body, stored.createdAt);
          } else if (kind === KIND_LOOP_CANCEL) {
            // A run waiting on a person is driven to write its cancelled outcome.
            if (!this.abort(stored.record.thread, 'cancel')) this.wake(stored.record.thread);
          } else if (kind === KIND_DECISION_ANSWER) {
            this.wake(stored.record.thread);
          }
          // A steering message (KIND_RUN_MESSAGE) is read by the next model call from the thread: nothing to do now.
        }
      },
    };
  }
}
