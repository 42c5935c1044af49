/**
 * The one error a provider call rejects with, whatever the vendor: its
 * name, the vendor's error type (Anthropic `error.type`, OpenAI
 * `error.type`) or one of Loom's for failures no vendor named, the HTTP
 * status, and how long the vendor asked us to wait. The message is the
 * vendor's, with every configured secret redacted: nothing else of the
 * SDK's error is kept (no `cause`), because a vendor may echo the key and
 * SDK errors carry request details.
 */
import type { ProviderName } from './provider-name.js';

/**
 * Loom's types, for failures the vendor did not type:
 * - `connection_error`: refused, reset, or closed mid-answer;
 * - `stream_stalled`: no byte for the adapter's idle timeout;
 * - `malformed_response`: not the vendor's protocol (bad JSON, events out of order, a stream without its end);
 * - `stream_error`: an in-stream error without a type (Ollama's `{"error"}` line);
 * - `http_error`: an HTTP error status without a typed body (Ollama);
 * - `aborted`: the caller's signal fired;
 * - `client_error`: anything else thrown on the way (a bug; never retried).
 */
export type LoomProviderErrorType = 'connection_error' | 'stream_stalled' | 'malformed_response' | 'stream_error' | 'http_error' | 'aborted' | 'client_error';

export interface ProviderErrorDetails {
  readonly status?: number | null;
  /** The vendor's finer code where it has one (OpenAI `error.code`, e.g. `insufficient_quota`). */
  readonly code?: string | null;
  readonly retryAfterMs?: number | null;
  readonly requestId?: string | null;
}

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly status: number | null;
  readonly code: string | null;
  readonly retryAfterMs: number | null;
  readonly requestId: string | null;

  constructor(
    readonly provider: ProviderName,
    /** The vendor's error type, or a LoomProviderErrorType. */
    readonly type: string,
    message: string,
    details: ProviderErrorDetails = {},
  ) {
    super(message);
    this.status = details.status ?? null;
    this.code = details.code ?? null;
    this.retryAfterMs = details.retryAfterMs ?? null;
    this.requestId = details.requestId ?? null;
  }

  static aborted(provider: ProviderName): ProviderError {
    return new ProviderError(provider, 'aborted', 'the provider call was aborted');
  }

  /** The fields a `provider_error` record keeps. */
  toJSON() {
    return { provider: this.provider, type: this.type, status: this.status, code: this.code, retry_after_ms: this.retryAfterMs, request_id: this.requestId, message: this.message };
  }
}
