/**
 * The one contract every model provider meets: complete a request as one
 * streamed assistant turn. Adapters make a single attempt (the vendor
 * SDKs' own retries are off); `withRetries` adds Loom's retry policy on top,
 * so each attempt is visible to the loop (a `provider_error` record each).
 */
import type { ModelRequest } from './model-request.js';
import type { ModelDelta, ModelTurn } from './model-turn.js';
import type { ProviderError } from './provider-error.js';
import type { ProviderName } from './provider-name.js';

export interface CompleteOptions {
  /** Aborts the provider stream at once (the socket is closed); `complete` then rejects with a ProviderError of type `aborted`. */
  readonly signal: AbortSignal;
  /** Streamed progress; called synchronously from the stream, so keep it cheap. */
  readonly onDelta?: (delta: ModelDelta) => void;
  /** Called by a retrying adapter before it waits and tries again; deltas of the failed attempt are void. */
  readonly onRetry?: (notice: RetryNotice) => void;
}

export interface RetryNotice {
  /** The attempt that failed, from 1. */
  readonly attempt: number;
  readonly error: ProviderError;
  /** How long the adapter waits before the next attempt. */
  readonly delayMs: number;
}

export interface ProviderAdapter {
  readonly provider: ProviderName;
  /**
   * Streams one assistant turn. Rejects only with a ProviderError: the
   * vendor's error (type, status, retry-after), a transport failure
   * (`connection_error`, `stream_stalled`, `malformed_response`) or `aborted`.
   */
  complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn>;
}
