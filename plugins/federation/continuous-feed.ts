/**
 * `feed=continuous`: the changes feed over server-sent events. Each event
 * `changes` carries a signed page (the same object `feed=normal` answers),
 * and its event id is the page's `next_cursor`, so a client reconnecting
 * with Last-Event-ID resumes exactly there: no gap, no duplicate. While idle
 * the stream sends `heartbeat` events that also carry a cursor, so a reader
 * whose grant withholds everything still moves forward.
 */
import { PassThrough } from 'node:stream';
import type { ChangesFeed, FeedRequest } from './changes-feed.js';
import { decodeFeedCursor } from './feed-cursor.js';
import type { SyncPage } from './sync-page.js';

export interface ContinuousOptions {
  readonly heartbeatMs: number;
  readonly signal: AbortSignal;
}

function frame(event: string, page: SyncPage): string {
  return `id: ${page.next_cursor}\nevent: ${event}\ndata: ${JSON.stringify(page)}\n\n`;
}

export function continuousFeed(feed: ChangesFeed, request: FeedRequest, options: ContinuousOptions): PassThrough {
  const stream = new PassThrough();
  const stop = new AbortController();
  const finish = () => {
    if (stop.signal.aborted) return;
    stop.abort();
    stream.end();
  };
  options.signal.addEventListener('abort', finish, { once: true });
  stream.on('close', finish);
  stream.write('retry: 1000\n\n');

  void (async () => {
    let after = request.after;
    // The cursor the reader last received: each event's page is bound to it, so the reader can check events continue one another.
    let since = request.since;
    const send = async (event: string, page: SyncPage) => {
      since = page.next_cursor;
      // Respect back-pressure: a slow reader slows the feed, it never grows the buffer without bound.
      if (!stream.write(frame(event, page))) await new Promise((resolve) => stream.once('drain', resolve));
    };
    try {
      while (!stop.signal.aborted) {
        const page = await feed.page({ ...request, since, after });
        const moved = decodeFeedCursor(page.next_cursor);
        if (page.records.length > 0) await send('changes', page);
        after = moved;
        if (page.has_more) continue;
        const before = after;
        await feed.waitForNews(after, options.heartbeatMs, stop.signal);
        if (stop.signal.aborted) break;
        const idle = await feed.page({ ...request, since, after, limit: request.limit });
        if (idle.records.length === 0) {
          // Nothing for this reader: a heartbeat, with the cursor past whatever was withheld.
          await send('heartbeat', idle);
          after = decodeFeedCursor(idle.next_cursor);
          if (after === before) continue;
        } else {
          await send('changes', idle);
          after = decodeFeedCursor(idle.next_cursor);
        }
      }
    } catch (error) {
      if (!stop.signal.aborted) {
        stream.write(`event: error\ndata: ${JSON.stringify({ object: 'error', code: 'INTERNAL', message: 'feed interrupted; reconnect with Last-Event-ID' })}\n\n`);
      }
      void error;
    } finally {
      finish();
    }
  })();
  return stream;
}
