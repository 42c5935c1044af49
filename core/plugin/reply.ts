/**
 * What a handler returns when a plain JSON body is not enough: another status,
 * headers, a text body, an empty body (304) or a stream (server-sent events,
 * blob bytes).
 */
import type { Readable } from 'node:stream';
import { EVENT_STREAM_HEADERS, type EventStream } from './event-stream.js';

export class Reply {
  private constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>>,
    readonly kind: 'json' | 'text' | 'stream' | 'empty',
  ) {}

  static json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
    return new Reply(status, body, headers, 'json');
  }

  static text(status: number, text: string, contentType = 'text/plain; charset=utf-8'): Reply {
    return new Reply(status, text, { 'content-type': contentType }, 'text');
  }

  static stream(stream: Readable, headers: Record<string, string>, status = 200): Reply {
    return new Reply(status, stream, headers, 'stream');
  }

  /** A server-sent events answer (core/plugin/event-stream.ts), never compressed. */
  static events(events: EventStream, status = 200): Reply {
    return new Reply(status, events.stream, { ...EVENT_STREAM_HEADERS }, 'stream');
  }

  /** No body at all (304 Not Modified, 204). */
  static empty(status: number, headers: Record<string, string> = {}): Reply {
    return new Reply(status, null, headers, 'empty');
  }
}
