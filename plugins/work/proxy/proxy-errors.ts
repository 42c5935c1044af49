/**
 * Refusals and provider failures as the chat proxy answers them: one body
 * that is both Anthropic's error (`{type: "error", error: {type, message}}`,
 * which the Anthropic SDKs turn into their typed errors) and Loom's envelope
 * (`object`, `code`, `message`), with the status Anthropic would give. A
 * provider's failure keeps its status class and retry-after, so a client's
 * own retry policy works as it would against the vendor; a failure the
 * client cannot fix (the provider refused Loom's key, the connection
 * broke) is a gateway error. The vendor's message is passed on already
 * redacted of every configured secret (ProviderError).
 */
import type { ErrorCode } from '../../../core/errors/codes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { ProviderError } from '../providers/index.js';

export interface ProxyFailure {
  readonly status: number;
  readonly code: ErrorCode;
  /** Anthropic's error type. */
  readonly type: string;
  readonly message: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Anthropic's error type for a status (docs: errors). */
export function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'billing_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 504) return 'timeout_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/** The body: Anthropic's fields and Loom's envelope side by side (they share no name but `type`, which is Anthropic's `"error"`). */
export function errorBody(failure: Pick<ProxyFailure, 'type' | 'code' | 'message'>): Record<string, unknown> {
  return { type: 'error', error: { type: failure.type, message: failure.message }, object: 'error', code: failure.code, message: failure.message };
}

export function fromLoomError(error: LoomError): ProxyFailure {
  const headers: Record<string, string> = {};
  const retry = error.details?.['retry_after_ms'];
  if (typeof retry === 'number') headers['retry-after'] = String(Math.ceil(retry / 1000));
  // A daily cap lifts tomorrow: the SDKs' retries (x-should-retry) would only spend the caller's wait.
  if (error.code === 'WORK_DAILY_CAP_EXCEEDED' || error.code === 'WORK_DAILY_COUNT_EXCEEDED') headers['x-should-retry'] = 'false';
  return { status: error.status, code: error.code, type: anthropicErrorType(error.status), message: error.message, headers };
}

/**
 * A provider's failure: 400 (the provider refused the request as malformed),
 * 413, 429 and 529 keep their status; everything else — the provider's 5xx,
 * its refusal of Loom's own key (401/403: the client's credential is fine,
 * the instance's is not), a broken connection, a stall, an answer that broke
 * its protocol — is a 502 api_error.
 */
export function fromProviderError(error: ProviderError): ProxyFailure {
  const headers: Record<string, string> = {};
  if (error.retryAfterMs !== null) headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfterMs / 1000)));
  const status = error.status ?? statusOfType(error.type);
  const message = `${error.provider}: ${error.message}`;
  if (status === 400 || status === 422) return { status: 400, code: 'PROVIDER_INVALID_REQUEST', type: 'invalid_request_error', message, headers };
  if (status === 413) return { status: 413, code: 'PAYLOAD_TOO_LARGE', type: 'request_too_large', message, headers };
  if (status === 429) return { status: 429, code: 'PROVIDER_RATE_LIMITED', type: 'rate_limit_error', message, headers };
  if (status === 529 || status === 503) return { status: 529, code: 'PROVIDER_OVERLOADED', type: 'overloaded_error', message, headers };
  return { status: 502, code: 'PROVIDER_FAILED', type: 'api_error', message, headers };
}

/** An in-stream error has no status: Anthropic's typed ones map by their type. */
function statusOfType(type: string): number {
  if (type === 'overloaded_error') return 529;
  if (type === 'rate_limit_error') return 429;
  if (type === 'invalid_request_error') return 400;
  if (type === 'request_too_large') return 413;
  return 502;
}

export function toFailure(error: unknown): ProxyFailure | null {
  return error instanceof LoomError ? fromLoomError(error) : null;
}
