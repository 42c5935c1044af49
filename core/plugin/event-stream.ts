/**
 * The one server-sent events writer (text/event-stream): framing (`id:`,
 * `event:`, `data:`), the `retry:` advice, comment or event heartbeats,
 * back-pressure (a send waits for `drain`, so a slow reader slows its feed
 * and never grows the buffer without bound) and teardown when the client
 * goes or the server stops. `Reply.events` answers with it, uncompressed:
 * hapi would gzip and buffer a stream for clients that accept gzip.
 */
import { PassThrough } from 'node:stream';

export interface EventStreamOptions {
  /** The request's abort signal: the client went away or the server is stopping. */
  readonly signal: AbortSignal;
  /** Reconnect delay advised to the client, in ms (`retry:`), sent first so headers flush at once. */
  readonly retryMs: number;
  /** A comment sent with the `retry:` line (`: <text>`). @default none */
  readonly greeting?: string;
  /** A comment every `everyMs` while the stream is open (`: <text>`). @default none */
  readonly heartbeat?: { readonly everyMs: number; readonly comment: () => string };
}

export interface ServerSentEvent {
  readonly id?: string | number;
  readonly event?: string;
  /** A string is sent as is (one line); anything else as its JSON. */
  readonly data: unknown;
}

export class EventStream {
  /** The bytes of the answer. */
  readonly stream = new PassThrough();
  private readonly stop = new AbortController();
  private heartbeat: NodeJS.Timeout | null = null;

  constructor(options: EventStreamOptions) {
    const close = () => this.close();
    options.signal.addEventListener('abort', close, { once: true });
    this.stream.on('close', close);
    this.stream.write(`retry: ${options.retryMs}\n${options.greeting === undefined ? '' : `: ${options.greeting}\n`}\n`);
    if (options.heartbeat) {
      const { everyMs, comment } = options.heartbeat;
      this.heartbeat = setInterval(() => this.stream.write(`: ${comment()}\n\n`), everyMs);
      this.heartbeat.unref();
    }
  }

  /** Aborted once the stream is torn down (client gone, server stopping, or `close()`). */
  get closed(): AbortSignal {
    return this.stop.signal;
  }

  /** Writes one event; resolves once the stream can take more. Nothing is written after teardown. */
  async send(event: ServerSentEvent): Promise<void> {
    if (this.closed.aborted) return;
    const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
    const frame = `${event.id === undefined ? '' : `id: ${event.id}\n`}${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${data}\n\n`;
    if (this.stream.write(frame) || this.closed.aborted) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.stream.off('drain', done);
        this.closed.removeEventListener('abort', done);
        resolve();
      };
      this.stream.once('drain', done);
      this.closed.addEventListener('abort', done, { once: true });
    });
  }

  /** Ends the stream (idempotent) and runs the teardown of whoever listens on `closed`. */
  close(): void {
    if (this.stop.signal.aborted) return;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.stop.abort();
    this.stream.end();
  }
}

/** The headers of an event stream answer. */
export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Hapi would gzip and buffer the stream for clients that accept gzip.
  'content-encoding': 'identity',
  'x-accel-buffering': 'no',
});
