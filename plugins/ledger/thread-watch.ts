/**
 * The thread-watch feed: server-sent events of one thread's records as they
 * land. Each event's id is the record's sequence, so a client that reconnects
 * with Last-Event-ID (or ?after=) resumes with no gap and no duplicate: the
 * history up to the bus position is read from the thread index, everything
 * after it comes from a bus subscription that starts exactly there. Comment
 * heartbeats keep idle connections (and proxies) alive.
 */
import type { Caller } from '../../core/access/caller.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { EventStream } from '../../core/plugin/event-stream.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

export interface WatchOptions {
  readonly thread: string;
  /** Deliver records with a sequence greater than this. */
  readonly after: number;
  readonly heartbeatMs: number;
  readonly signal: AbortSignal;
}

function event(stored: StoredRecord) {
  return { id: stored.sequence, event: 'record', data: JSON.stringify(stored.record) };
}

export function watchThread(reader: RecordReader, caller: Caller, options: WatchOptions): EventStream {
  const upTo = reader.position;
  const subscription = reader.subscribe(caller, { after: Math.max(upTo, options.after), filter: (stored) => stored.record.thread === options.thread });
  // `retry:` tells the client how long to wait before reconnecting, and flushes headers at once.
  const events = new EventStream({
    signal: options.signal,
    retryMs: 2000,
    greeting: `watching ${options.thread}`,
    heartbeat: { everyMs: options.heartbeatMs, comment: () => `heartbeat ${new Date().toISOString()}` },
  });
  events.closed.addEventListener('abort', () => subscription.close(), { once: true });

  void (async () => {
    try {
      for await (const page of reader.pages(caller, options.thread, { after: options.after, upTo })) {
        if (events.closed.aborted) break;
        for (const stored of page.items) await events.send(event(stored));
      }
      for await (const stored of subscription) {
        if (events.closed.aborted) break;
        await events.send(event(stored));
      }
    } catch (error) {
      await events.send({ event: 'error', data: { object: 'error', code: 'INTERNAL', message: 'feed interrupted; reconnect with Last-Event-ID' } });
      void error;
    } finally {
      events.close();
    }
  })();
  return events;
}
