/**
 * A token bucket per key, in memory: `burst` attempts at once, then one per
 * `refillMs`. The re-credential door keys one limiter by the principal string
 * it was sent and one by the client address (spec §5.6; 3 then 1 per 5 s,
 * docs/decisions.md). Memory is bounded: past `maxKeys` the oldest buckets go
 * (a forgotten bucket is a full one, so eviction only ever errs towards the
 * limit the bucket would have reached anyway after a quiet minute).
 */
import { LRUCache } from 'lru-cache';

export class RateLimiter {
  /** An LRU, not a Map dropping its first key: V8 walks the deleted entries at a Map's front on every `keys().next()`, tens of µs a request once full. */
  private readonly buckets: LRUCache<string, { tokens: number; at: number }>;

  constructor(
    private readonly burst = 3,
    private readonly refillMs = 5000,
    maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.buckets = new LRUCache({ max: maxKeys });
  }

  /** Takes one attempt for `key`; false when none is left. */
  take(key: string): boolean {
    const now = this.now();
    const bucket = this.buckets.get(key);
    let tokens = this.burst;
    if (bucket) tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) / this.refillMs);
    if (tokens < 1) {
      this.buckets.set(key, { tokens, at: now });
      return false;
    }
    this.buckets.set(key, { tokens: tokens - 1, at: now });
    return true;
  }

  /** Milliseconds until `key` has an attempt again. */
  retryAfterMs(key: string): number {
    const bucket = this.buckets.peek(key);
    if (!bucket) return 0;
    const tokens = bucket.tokens + (this.now() - bucket.at) / this.refillMs;
    return tokens >= 1 ? 0 : Math.ceil((1 - tokens) * this.refillMs);
  }
}
