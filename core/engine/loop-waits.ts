/**
 * How the kernel's background loops (log consumers) wait:
 * `sleep` until there is news (a poke from the broadcast) or a timeout;
 * `pause` for a set time that news does not cut short (backing off, or
 * yielding to a burst of writes); `stop` ends either at once. While records
 * keep arriving (`busy`), `yieldAfter` pauses so that the loop's work takes
 * at most `share` of the time.
 */
export class LoopWaits {
  private wake: (() => void) | null = null;
  private stopWake: (() => void) | null = null;
  private stopped = false;
  private lastPublishedAt = 0;

  /** Records were published: a sleeping loop has work. */
  notePublished(): void {
    this.lastPublishedAt = performance.now();
  }

  /** Records arrived within the last second. */
  get busy(): boolean {
    return performance.now() - this.lastPublishedAt < 1_000;
  }

  /** Ends the current sleep (not a pause). */
  poke(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Ends the current sleep or pause (a backoff cut short: the cause of the failures changed). */
  interrupt(): void {
    this.poke();
    const stopWake = this.stopWake;
    this.stopWake = null;
    stopWake?.();
  }

  /** Ends the current sleep or pause; later waits return at once. */
  stop(): void {
    this.stopped = true;
    this.poke();
    const stopWake = this.stopWake;
    this.stopWake = null;
    stopWake?.();
  }

  sleep(ms: number): Promise<void> {
    return this.wait(ms, (done) => (this.wake = done));
  }

  pause(ms: number): Promise<void> {
    return this.wait(ms, (done) => (this.stopWake = done));
  }

  /** After work that began at `startedMs` (performance.now()), pauses so that while busy the work takes at most `share` of the time. */
  async yieldAfter(startedMs: number, share: number): Promise<void> {
    if (share >= 1 || !this.busy) return;
    await this.pause(((performance.now() - startedMs) * (1 - share)) / share);
  }

  private wait(ms: number, register: (done: () => void) => void): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      register(done);
    });
  }
}
