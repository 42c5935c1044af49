/**
 * The thread-watch feed: server-sent events of one thread's records as they
 * land. Each event's id is the record's sequence, so a client that reconnects
 * with Last-Event-ID (or ?after=) resumes with no gap and no duplicate: the
 * history up to the bus position is read from the thread index, everything
 * after it comes from a bus subscription that starts exactly there. Comment
 * heartbeats keep idle connections (and proxies) alive.
 */
import { PassThrough } from 'node:stream';
import type { Caller } from '../../core/access/caller.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';

export interface WatchOptions {
  readonly thread: string;
  /** Deliver records with a sequence greater than this. */
  readonly after: number;
  readonly heartbeatMs: number;
  readonly signal: AbortSignal;
}

function event(stored: StoredRecord): string {
  return `id: ${stored.sequence}\nevent: record\ndata: ${JSON.stringify(stored.record)}\n\n`;
}

export function watchThread(reader: RecordReader, caller: Caller, options: WatchOptions): PassThrough {
  const stream = new PassThrough();
  const upTo = reader.position;
  const subscription = reader.subscribe(caller, { after: Math.max(upTo, options.after), filter: (stored) => stored.record.thread === options.thread });
  const heartbeat = setInterval(() => stream.write(`: heartbeat ${new Date().toISOString()}\n\n`), options.heartbeatMs);
  heartbeat.unref();

  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearInterval(heartbeat);
    subscription.close();
    stream.end();
  };
  options.signal.addEventListener('abort', finish, { once: true });
  stream.on('close', finish);

  // Tell the client how long to wait before reconnecting, and flush headers at once.
  stream.write(`retry: 2000\n: watching ${options.thread}\n\n`);

  void (async () => {
    try {
      let after = options.after;
      while (!finished && after < upTo) {
        const page = await reader.listByThread(caller, options.thread, { after, limit: 1000 });
        for (const stored of page.items) {
          if (stored.sequence > upTo) break;
          stream.write(event(stored));
        }
        if (page.nextAfter === null) break;
        after = page.nextAfter;
      }
      for await (const stored of subscription) {
        if (finished) break;
        stream.write(event(stored));
      }
    } catch (error) {
      if (!finished) stream.write(`event: error\ndata: ${JSON.stringify({ object: 'error', code: 'INTERNAL', message: 'feed interrupted; reconnect with Last-Event-ID' })}\n\n`);
      void error;
    } finally {
      finish();
    }
  })();
  return stream;
}
