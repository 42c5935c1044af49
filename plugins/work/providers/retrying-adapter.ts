/**
 * Loom's retry policy around one adapter: the vendor SDKs' own retries are
 * off (maxRetries 0) so that every attempt is Loom's to see, to report
 * (`onRetry`, one `provider_error` record each) and to stop: an abort ends
 * the wait at once and nothing is retried after it.
 */
import type { CompleteOptions, ProviderAdapter } from './provider-adapter.js';
import type { ModelRequest } from './model-request.js';
import type { ModelTurn } from './model-turn.js';
import { ProviderError } from './provider-error.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from './retry-policy.js';

export function withRetries(adapter: ProviderAdapter, policy: RetryPolicy = DEFAULT_RETRY_POLICY, random: () => number = Math.random): ProviderAdapter {
  return {
    provider: adapter.provider,
    async complete(request: ModelRequest, options: CompleteOptions): Promise<ModelTurn> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await adapter.complete(request, options);
        } catch (error) {
          if (options.signal.aborted) throw ProviderError.aborted(adapter.provider);
          if (!(error instanceof ProviderError)) throw error;
          const delayMs = retryDelayMs(error, attempt, policy, random);
          if (delayMs === null) throw error;
          options.onRetry?.({ attempt, error, delayMs });
          if (!(await sleep(delayMs, options.signal))) throw ProviderError.aborted(adapter.provider);
        }
      }
    },
  };
}

/** Resolves true after `ms`, or false as soon as the signal aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
