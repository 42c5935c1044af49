/**
 * When a failed provider call is worth another attempt, and after how long.
 * Retried: 408, 409, 429 and every 5xx (529 is Anthropic's overload), the
 * vendors' in-stream overload and server errors (the 200 had already gone
 * out), connection resets and stalls. Never retried: an abort, a refusal of
 * the request (4xx), an exhausted quota (OpenAI answers it with 429
 * `insufficient_quota`, which waiting does not fix), a malformed answer.
 * The wait honours the vendor's retry-after; one longer than
 * `maxRetryAfterMs` is not waited out, so a run is never parked for minutes
 * inside one call: the error goes to the loop, which records it.
 */
import type { ProviderError } from './provider-error.js';

export interface RetryPolicy {
  /** Attempts in all, the first included. @default 4 */
  readonly maxAttempts: number;
  /** Backoff before the second attempt, doubled for each later one (ms). @default 500 */
  readonly baseDelayMs: number;
  /** Backoff ceiling (ms). @default 8000 */
  readonly maxDelayMs: number;
  /** The longest retry-after Loom waits out (ms); a longer one ends the call with the error. @default 60000 */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

const RETRIED_STATUSES = new Set([408, 409, 429]);
/** In-stream error types that are the vendor's 5xx or 429 after a 200 (Anthropic's, OpenAI's) and Loom's transport types. */
const RETRIED_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error', 'server_error', 'connection_error', 'stream_stalled', 'stream_error']);
const QUOTA = 'insufficient_quota';

export function isRetryable(error: ProviderError): boolean {
  if (error.type === 'aborted') return false;
  if (error.type === QUOTA || error.code === QUOTA) return false;
  if (error.status !== null) return RETRIED_STATUSES.has(error.status) || error.status >= 500;
  return RETRIED_TYPES.has(error.type);
}

/**
 * The wait before the next attempt, or null to give up. `attempt` is the
 * attempt that just failed, from 1. Exponential backoff loses up to a
 * quarter to jitter (`random` in [0, 1)), so concurrent runs do not retry in
 * step; a vendor's retry-after is taken as given.
 */
export function retryDelayMs(error: ProviderError, attempt: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY, random: () => number = Math.random): number | null {
  if (attempt >= policy.maxAttempts || !isRetryable(error)) return null;
  if (error.retryAfterMs !== null) return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : null;
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(backoff * (1 - 0.25 * random()));
}
