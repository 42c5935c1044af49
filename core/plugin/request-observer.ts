/**
 * What a plugin learns about every answered request (metrics, access logs):
 * the route's operation id, method, status, duration and the error code of
 * a refusal. Observers run after the answer is sent; they must be cheap and
 * must not throw (a throwing observer is logged and skipped).
 */
export interface RequestEvent {
  /** operationId of the matched route; null when no route matched (404). */
  readonly route: string | null;
  readonly method: string;
  readonly status: number;
  readonly durationMs: number;
  /** The envelope's code when the answer was a refusal. */
  readonly code: string | null;
  /** The request's id: the client's X-Request-Id when it sent a usable one, else one made here; echoed in the answer. */
  readonly requestId: string;
  /** The path, without the query string. */
  readonly path: string;
  readonly remoteAddress: string;
}

export type RequestObserver = (event: RequestEvent) => void;
