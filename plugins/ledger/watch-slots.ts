/**
 * The cap on open thread-watch feeds (SSE): each open feed holds a socket, a
 * bus subscription and a heartbeat timer, so their number is bounded
 * (`maxWatchers`); past it a new watch answers 503 SERVICE_UNAVAILABLE and
 * the client retries later.
 */
import { token } from '../../core/di/token.js';

export class WatchSlots {
  private held = 0;

  constructor(readonly max: number) {}

  get open(): number {
    return this.held;
  }

  /** A release function, or null when every slot is taken. Releasing twice releases once. */
  take(): (() => void) | null {
    if (this.held >= this.max) return null;
    this.held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
    };
  }
}

export const WatchSlotsToken = token<WatchSlots>('ledger.WatchSlots');
