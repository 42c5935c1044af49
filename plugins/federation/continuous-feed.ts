/**
 * `feed=continuous`: the changes feed over server-sent events. Each event
 * `changes` carries a signed page (the same object `feed=normal` answers),
 * and its event id is the page's `next_cursor`, so a client reconnecting
 * with Last-Event-ID resumes exactly there: no gap, no duplicate. While idle
 * the stream sends `heartbeat` events that also carry a cursor, so a reader
 * whose grant withholds everything still moves forward.
 */
import { EventStream } from '../../core/plugin/event-stream.js';
import type { ChangesFeed, FeedRequest } from './changes-feed.js';
import { decodeFeedCursor } from './feed-cursor.js';
import type { SyncPage } from './sync-page.js';

export interface ContinuousOptions {
  readonly heartbeatMs: number;
  readonly signal: AbortSignal;
}

export function continuousEvents(feed: ChangesFeed, request: FeedRequest, options: ContinuousOptions): EventStream {
  const events = new EventStream({ signal: options.signal, retryMs: 1000 });
  const stop = events.closed;

  void (async () => {
    let after = request.after;
    // The cursor the reader last received: each event's page is bound to it, so the reader can check events continue one another.
    let since = request.since;
    const send = async (event: string, page: SyncPage) => {
      since = page.next_cursor;
      await events.send({ id: page.next_cursor, event, data: page });
    };
    try {
      while (!stop.aborted) {
        const page = await feed.page({ ...request, since, after });
        const moved = decodeFeedCursor(page.next_cursor);
        if (page.records.length > 0) await send('changes', page);
        after = moved;
        if (page.has_more) continue;
        const before = after;
        await feed.waitForNews(after, options.heartbeatMs, stop);
        if (stop.aborted) break;
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
      await events.send({ event: 'error', data: { object: 'error', code: 'INTERNAL', message: 'feed interrupted; reconnect with Last-Event-ID' } });
      void error;
    } finally {
      events.close();
    }
  })();
  return events;
}
