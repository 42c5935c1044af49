/**
 * One provider call's guard: a signal that aborts on the caller's abort or
 * when no byte has arrived for `idleTimeoutMs` (a stalled stream, before or
 * after the headers), and the `fetch` the vendor client is built with, which
 * links that signal into the request and counts every body chunk as a sign
 * of life. Bytes, not events, because an Anthropic stream that only sends
 * `ping`s (which the SDK swallows) is alive. The guard also remembers the
 * last response's headers (the `ollama` client drops them, and with them
 * `retry-after`), and closes the connection of any call that did not end
 * well, so no failed call leaves a socket open.
 */
import { performance } from 'node:perf_hooks';
import type { ProviderName } from './provider-name.js';
import { ProviderError } from './provider-error.js';

export interface CallGuardOptions {
  readonly idleTimeoutMs: number;
  /** A check the response body passes through when the status is 2xx (the NDJSON line check, for Ollama). */
  readonly bodyCheck?: () => TransformStream<Uint8Array, Uint8Array>;
}

export class CallGuard {
  private readonly controller = new AbortController();
  private tripped: 'aborted' | 'stalled' | null = null;
  private lastActivity = performance.now();
  private timer: NodeJS.Timeout | null = null;
  private readonly onCallerAbort = () => this.trip('aborted');
  /** Headers of the last response, for retry-after where the client hides them. */
  lastHeaders: Headers | null = null;

  constructor(
    private readonly provider: ProviderName,
    private readonly caller: AbortSignal,
    private readonly options: CallGuardOptions,
  ) {
    if (caller.aborted) this.trip('aborted');
    else caller.addEventListener('abort', this.onCallerAbort, { once: true });
    this.arm(options.idleTimeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const signal = init?.signal ? AbortSignal.any([init.signal, this.controller.signal]) : this.controller.signal;
    const response = await fetch(input, { ...init, signal });
    this.lastActivity = performance.now();
    this.lastHeaders = response.headers;
    if (!response.body) return response;
    let body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform: (chunk, controller) => {
          this.lastActivity = performance.now();
          controller.enqueue(chunk);
        },
      }),
    );
    if (this.options.bodyCheck && response.ok) body = body.pipeThrough(this.options.bodyCheck());
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  /** The abort or stall that ended the call, if one did; checked before any vendor error, which would only be its echo. */
  failure(): ProviderError | null {
    if (this.tripped === 'aborted') return ProviderError.aborted(this.provider);
    if (this.tripped === 'stalled') return new ProviderError(this.provider, 'stream_stalled', `no data from the provider for ${this.options.idleTimeoutMs} ms`);
    return null;
  }

  /** Ends the guard; a call that did not complete has its connection closed. */
  release(completed: boolean): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.caller.removeEventListener('abort', this.onCallerAbort);
    if (!completed && !this.controller.signal.aborted) this.controller.abort();
  }

  // One timer re-armed for the remaining time, rather than a clear and set on every chunk.
  private arm(delayMs: number): void {
    this.timer = setTimeout(() => {
      const idle = performance.now() - this.lastActivity;
      if (idle >= this.options.idleTimeoutMs) this.trip('stalled');
      else this.arm(this.options.idleTimeoutMs - idle);
    }, delayMs);
  }

  private trip(kind: 'aborted' | 'stalled'): void {
    if (this.tripped) return;
    this.tripped = kind;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.controller.abort();
  }
}
