/**
 * Ollama's native `/api/chat` through the `ollama` package: one streamed
 * chat per call, added up by OllamaTurn. The client is built per call
 * around the call's guard, whose fetch also puts the NDJSON line check in
 * front of the client (which would skip a malformed line silently) and
 * notes an `{"error"}` line, so an in-stream error keeps Ollama's own
 * message. The client has no per-request signal and drops response
 * headers; the guard's fetch supplies both.
 */
import { Ollama } from 'ollama';
import { CallGuard } from './call-guard.js';
import { isConnectionFailure } from './connection-failure.js';
import { describeError } from './describe-error.js';
import { MalformedStreamError } from './malformed-stream.js';
import type { ModelRequest } from './model-request.js';
import type { ModelTurn } from './model-turn.js';
import { ndjsonCheck } from './ndjson-check.js';
import { ollamaRequest } from './ollama-request.js';
import { OllamaTurn } from './ollama-turn.js';
import type { CompleteOptions, ProviderAdapter } from './provider-adapter.js';
import { DEFAULT_IDLE_TIMEOUT_MS, type OllamaConfig } from './provider-config.js';
import { ProviderError } from './provider-error.js';
import { redactSecrets } from './redact-secrets.js';
import { retryAfterMs } from './retry-after.js';

export class OllamaAdapter implements ProviderAdapter {
  readonly provider = 'ollama' as const;

  constructor(private readonly config: OllamaConfig) {}

  async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
    let errorLine: string | null = null;
    const noteErrorLine = (value: unknown) => {
      const error = (value as { error?: unknown } | null)?.error;
      if (typeof error === 'string') errorLine = error;
    };
    const guard = new CallGuard('ollama', options.signal, { idleTimeoutMs: this.config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, bodyCheck: () => ndjsonCheck(noteErrorLine) });
    let completed = false;
    try {
      const client = new Ollama({ host: this.config.host, fetch: guard.fetch });
      const turn = new OllamaTurn();
      for await (const part of await client.chat(ollamaRequest(request))) turn.add(part, options.onDelta);
      const failure = guard.failure();
      if (failure) throw failure;
      const result = turn.finish();
      completed = true;
      return result;
    } catch (error) {
      throw guard.failure() ?? ollamaError(error, errorLine, guard.lastHeaders);
    } finally {
      guard.release(completed);
    }
  }
}

/** Ollama's errors carry no type: an HTTP status with `{"error": "..."}`, or an error line inside a 200 stream. */
function ollamaError(error: unknown, errorLine: string | null, headers: Headers | null): ProviderError {
  if (error instanceof ProviderError) return error;
  // Ollama needs no key, but a host URL may carry credentials (http://user:pass@host): no message keeps them.
  const redact = (text: string) => redactSecrets(text, []).replace(/\/\/[^/@\s]+@/g, '//[redacted]@');
  if (errorLine !== null) return new ProviderError('ollama', 'stream_error', redact(errorLine));
  if (isConnectionFailure(error)) return new ProviderError('ollama', 'connection_error', redact(`connection to the provider failed: ${describeError(error)}`));
  const status = (error as { status_code?: unknown }).status_code;
  if (typeof status === 'number') {
    const message = (error as { error?: unknown }).error;
    return new ProviderError('ollama', 'http_error', redact(typeof message === 'string' ? message : `HTTP ${status}`), { status, retryAfterMs: retryAfterMs(headers) });
  }
  // The client's own stream complaints ("Did not receive done ...") are plain Errors.
  if (error instanceof MalformedStreamError || error instanceof SyntaxError || (error instanceof Error && error.constructor === Error)) {
    return new ProviderError('ollama', 'malformed_response', redact(`the provider's answer broke its protocol: ${describeError(error)}`));
  }
  return new ProviderError('ollama', 'client_error', redact(describeError(error)));
}
