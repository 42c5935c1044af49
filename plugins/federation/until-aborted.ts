/**
 * A promise that settles when `work` does or, at the latest, as soon as
 * `signal` aborts. Node's fetch (undici 6) does not always honour its own
 * signal: a request or a `response.text()` caught in a connection race can
 * stay pending forever after the abort (nodejs/undici#4089; seen here as a
 * pair runner that never stopped, holding up a revocation). Every peer
 * request in this plugin awaits its fetch and its body through this, so a
 * pause, a stop or a timeout always ends the wait; the abandoned promise is
 * left to settle (or not) on its own, its outcome ignored.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => undefined);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** What fetch itself rejects with on an abort: the signal's reason (an AbortError or a TimeoutError DOMException). */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}
