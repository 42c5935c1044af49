/**
 * Single-use nonces of signed handshake bodies (a replayed nonce: 410).
 * A pair request's nonce is on the log (its `requested` record), so the fold
 * refuses it again after a restart; every nonce also waits here, in memory,
 * from the moment its body verified until twice the clock window has passed
 * (by then its `created` is stale anyway), which covers the instant between
 * verifying a request and recording it, and polls and revoke notices, which
 * write nothing. Memory is bounded by the window: entries are pruned as they age.
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import { CLOCK_WINDOW_MS } from './handshake-bodies.js';

export class NonceStore {
  private readonly seen = new Map<string, number>();

  constructor(
    /** Nonces recorded on the log (the pair fold's). */
    private readonly recorded: () => ReadonlySet<string>,
    private readonly now: () => number,
  ) {}

  /** Takes the nonce for good, or throws PAIR_NONCE_REPLAYED. */
  claim(nonce: string): void {
    const now = this.now();
    this.prune(now);
    if (this.seen.has(nonce) || this.recorded().has(nonce)) throw new LoomError('PAIR_NONCE_REPLAYED', 'this nonce was already used: every handshake body carries a fresh one');
    this.seen.set(nonce, now + 2 * CLOCK_WINDOW_MS);
  }

  get size(): number {
    return this.seen.size;
  }

  private prune(now: number): void {
    // Insertion order is expiry order (a constant lifetime), so the oldest are first.
    for (const [nonce, until] of this.seen) {
      if (until > now) break;
      this.seen.delete(nonce);
    }
  }
}
