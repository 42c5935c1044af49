/**
 * The client of a local embedding server speaking Ollama's HTTP API:
 * `POST <endpoint>/api/embed` with `{model, input: string[]}` answers
 * `{model, embeddings: number[][]}`; a refusal answers a status with
 * `{error: "..."}` (404 for a model that was never pulled). One request per
 * batch, each bounded by a timeout; network failures, 429 and 5xx are
 * retried with exponential backoff and jitter, other statuses are the
 * provider's answer and are not.
 */
export interface EmbedClientOptions {
  readonly timeoutMs: number;
  /** Attempts after the first, for failures worth retrying. */
  readonly retries: number;
  readonly backoffMs: number;
}

/** The provider refused or could not be reached; `status` is its HTTP status (null when none came back). */
export class EmbedderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    /** Whether trying the same input again later may succeed (down, overloaded), as opposed to a refusal of the input. */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'EmbedderError';
  }
}

/**
 * A retry's wait. It holds the process (no unref): a command that awaits an embedding batch, such as
 * the CLI's offline import stopping the consumer, must not see Node exit under it with status 0 and
 * nothing done. An abort ends the wait at once, so a stopping server does not sit out the backoff.
 */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

function providerMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error.slice(0, 500);
  } catch {
    // not JSON: the raw text, shortened
  }
  return text.slice(0, 200) || 'no message';
}

export class OllamaEmbedClient {
  constructor(
    readonly endpoint: string,
    readonly model: string,
    private readonly options: EmbedClientOptions,
  ) {}

  /** One vector per input, in order. */
  async embed(inputs: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    if (inputs.length === 0) return [];
    let attempt = 0;
    for (;;) {
      try {
        return await this.once(inputs, signal);
      } catch (error) {
        const failure = error instanceof EmbedderError ? error : new EmbedderError(String(error), null, true);
        if (!failure.transient || attempt >= this.options.retries || signal?.aborted) throw failure;
        const delay = this.options.backoffMs * 2 ** attempt;
        attempt += 1;
        await sleep(delay / 2 + Math.random() * (delay / 2), signal);
        if (signal?.aborted) throw failure;
      }
    }
  }

  private async once(inputs: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    const url = new URL('api/embed', this.endpoint.endsWith('/') ? this.endpoint : this.endpoint + '/');
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: this.model, input: inputs }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      const cause = (error as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
      throw new EmbedderError(`embedding server ${this.endpoint} unreachable: ${cause}`, null, true);
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      const transient = response.status === 429 || response.status >= 500;
      throw new EmbedderError(`embedding server answered ${response.status}: ${providerMessage(text)}`, response.status, transient);
    }
    let parsed: { embeddings?: unknown };
    try {
      parsed = JSON.parse(text) as { embeddings?: unknown };
    } catch {
      throw new EmbedderError('embedding server answered a body that is not JSON', response.status, false);
    }
    const embeddings = parsed.embeddings;
    if (!Array.isArray(embeddings) || embeddings.length !== inputs.length) {
      throw new EmbedderError(`embedding server answered ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${inputs.length} inputs`, response.status, false);
    }
    for (const vector of embeddings) {
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbedderError('embedding server answered an embedding that is not a list of finite numbers', response.status, false);
      }
    }
    return embeddings as number[][];
  }
}
