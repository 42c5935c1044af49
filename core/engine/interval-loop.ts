/**
 * An engine loop that runs a step every `intervalMs` (TICK, the scheduler,
 * the heartbeat): never two runs at once, a failed run reported and the loop
 * kept going, `stop()` resolving once the run in flight finished. `runOnce()`
 * lets tests and operators drive it by hand under a controlled clock.
 */
import type { EngineLoop } from './engine-loop.js';

export class IntervalLoop implements EngineLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  runs = 0;
  lastRunAt: string | null = null;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly step: () => Promise<void>,
    private readonly onError: (context: string, error: unknown) => void,
    /** Run once right after start (the heartbeat announces itself at once). */
    private readonly runAtStart = false,
    /** One server at a time when several share the log (see EngineLoop.singleton). */
    readonly singleton = false,
  ) {}

  get interval(): number {
    return this.intervalMs;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.timer = setInterval(() => void this.runOnce(), this.intervalMs);
    this.timer.unref();
    if (this.runAtStart) void this.runOnce();
  }

  /** Runs the step now unless a run is in flight (then waits for that one). */
  runOnce(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      try {
        await this.step();
        this.runs++;
        this.lastRunAt = new Date().toISOString();
      } catch (error) {
        this.onError(`${this.name} run failed`, error);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
