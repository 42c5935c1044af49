/**
 * Follows a thread's new records over the SSE watch (for views that show a
 * fold-like answer, a run or the decision queue, and refetch it when its
 * thread moves): reopened after every drop with the last sequence seen.
 */
import type { LoomClient, Record as LoomRecord } from '../sdk/index.js';

export function follow(client: LoomClient, thread: string, onRecord: (record: LoomRecord, sequence: number) => void): () => void {
  const stop = new AbortController();
  let last: number | null = null;
  void (async () => {
    let delay = 250;
    while (!stop.signal.aborted) {
      try {
        const { stream } = await client.watchThread({
          path: { id: thread },
          ...(last === null ? {} : { headers: { 'Last-Event-ID': String(last) } }),
          signal: stop.signal,
          sseMaxRetryAttempts: 1,
          onSseEvent: (event) => {
            delay = 250;
            if (event.event !== 'record' || event.id === undefined) return;
            last = Number(event.id);
            onRecord(event.data as LoomRecord, last);
          },
        });
        for await (const _ of stream) void _;
      } catch {
        // dropped: retried below
      }
      if (stop.signal.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 5_000);
    }
  })();
  return () => stop.abort();
}

/**
 * Runs `load` now and again whenever `poke` is called, never two at once: a
 * poke during a load runs it once more after (the answer is never older than the last poke).
 */
export function coalesced(load: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  const run = async () => {
    if (running) return void (again = true);
    running = true;
    try {
      do {
        again = false;
        await load();
      } while (again);
    } finally {
      running = false;
    }
  };
  return () => void run();
}
