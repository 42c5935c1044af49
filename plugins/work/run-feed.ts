/**
 * A run's event stream: the thread-watch feed of the run's thread (the
 * kernel's one SSE writer, resumable by sequence), under the same cap as
 * thread watches. Shared by the loop stream and the run events door.
 */
import type { Caller } from '../../core/access/caller.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { EventStream } from '../../core/plugin/event-stream.js';
import { openThreadWatch, type WatchSlots } from '../ledger/index.js';

export interface RunFeedOptions {
  readonly reader: RecordReader;
  readonly slots: WatchSlots;
  readonly caller: Caller;
  readonly thread: string;
  readonly heartbeatMs: number;
  readonly signal: AbortSignal;
  readonly lastEventId: string | undefined;
  /** Deliver records after this sequence when no Last-Event-ID is sent. */
  readonly after: string;
}

export function openRunFeed(options: RunFeedOptions): EventStream {
  if (options.lastEventId !== undefined && !/^[0-9]{1,16}$/.test(options.lastEventId)) {
    throw new LoomError('INVALID_SHAPE', 'headers.last-event-id: must be the sequence of the last event received');
  }
  const release = options.slots.take();
  if (!release) throw new LoomError('SERVICE_UNAVAILABLE', `${options.slots.max} feeds are open, the most this server allows; retry in a few seconds`, { retry_after_ms: 5000 });
  const events = openThreadWatch(options.reader, options.caller, { thread: options.thread, after: Number(options.lastEventId ?? options.after), heartbeatMs: options.heartbeatMs, signal: options.signal });
  events.closed.addEventListener('abort', release, { once: true });
  return events;
}
