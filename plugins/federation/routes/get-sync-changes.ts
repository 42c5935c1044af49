import { Type } from 'typebox';
import { covers } from '../../../core/access/scopes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { namespaceSyntaxError } from '../../../core/records/namespace-path.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { CHANGES_DEFAULT_LIMIT, CHANGES_MAX_LIMIT } from '../../../storage/contract/record-store.js';
import { continuousEvents } from '../continuous-feed.js';
import { decodeFeedCursor } from '../feed-cursor.js';
import { FederationOptionsToken, SyncServiceToken } from '../federation-token.js';
import { SyncPageSchema } from './schemas.js';
import { serviceAccountOf } from '../../auth/index.js';
import { LiveFeedsToken, PeerContactToken } from '../handshake/handshake-tokens.js';

export const getSyncChanges = defineRoute({
  operationId: 'getSyncChanges',
  method: 'GET',
  path: '/v1/sync/changes',
  summary: 'The consent-filtered changes feed',
  description:
    'Records after `since`, as the caller may see them and as consent lets them cross into `target_namespace` (default `default`): ' +
    'same namespace unchanged, otherwise the projection at the granted hash level, no grant withheld. Control threads never leave the instance. ' +
    '`feed=normal` answers at once, `longpoll` holds up to 30 s for news, `continuous` streams text/event-stream (needs federation:subscribe): ' +
    'events `changes` and, while idle, `heartbeat`, each a signed page whose event id is its next_cursor (resume with Last-Event-ID). ' +
    'A bearer minted for a federation pair that is paused here is refused 409 PAIR_PAUSED. ' +
    'next_cursor always moves past what was examined, withheld or not. Every page is signed over its records whole (judged_by included) and over ' +
    '`request`, the request it answers (since, target_namespace, thread), so a reader can refuse a page replayed or served in place of another.',
  tags: ['federation'],
  auth: { scope: 'federation:sync' },
  request: {
    query: Type.Object(
      {
        thread: Type.Optional(Type.String({ minLength: 4, maxLength: 80 })),
        since: Type.Optional(Type.String({ maxLength: 64, description: 'A next_cursor; absent: the start of the log.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: CHANGES_MAX_LIMIT, default: CHANGES_DEFAULT_LIMIT })),
        feed: Type.Optional(Type.Union([Type.Literal('normal'), Type.Literal('longpoll'), Type.Literal('continuous')], { default: 'normal' })),
        target_namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'A signed page (or, with feed=continuous, an event stream of them).', schema: SyncPageSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_CURSOR', 'AUTH_REQUIRED', 'PAIR_PAUSED'],
  inject: { sync: SyncServiceToken, options: FederationOptionsToken, feeds: LiveFeedsToken, contact: PeerContactToken },
  handler: async ({ query, headers, caller, signal: requestSignal }, { sync, options, feeds, contact }) => {
    // A federation pair's peer: refused while the pair is paused here; its contact resets this side's backoff.
    contact.seen(serviceAccountOf(caller));
    const target = query.target_namespace ?? 'default';
    const syntax = target === 'default' ? null : namespaceSyntaxError(target);
    if (syntax) throw new LoomError('INVALID_SHAPE', `target_namespace: ${syntax}`);
    const feed = query.feed ?? 'normal';
    const lastEventId = feed === 'continuous' ? headers['last-event-id'] : undefined;
    const since = lastEventId ?? query.since ?? '';
    const after = decodeFeedCursor(since);
    // ---- relay mailbox (issue 35): a read by a pair's peer is direct delivery; the relay sender deposits only for silent peers ----
    contact.noteRead(serviceAccountOf(caller), { since, target_namespace: target, thread: query.thread ?? null });
    // ---- end relay mailbox ----
    const request = { caller, since, after, limit: query.limit ?? CHANGES_DEFAULT_LIMIT, targetNamespace: target, ...(query.thread ? { thread: query.thread } : {}) };
    if (feed === 'continuous') {
      if (!covers(caller.scopes, 'federation:subscribe')) throw new LoomError('SCOPE_FORBIDDEN', 'feed=continuous needs the federation:subscribe scope');
      // Held open past the bearer check: revoking the bearer's pair cuts it (handshake/live-feeds.ts).
      const held = feeds.hold(serviceAccountOf(caller), requestSignal);
      requestSignal.addEventListener('abort', held.release, { once: true });
      return Reply.events(continuousEvents(sync.feed, request, { heartbeatMs: options.heartbeatMs, signal: held.signal }));
    }
    const page = await sync.feed.page(request);
    if (feed === 'normal' || page.records.length > 0 || page.has_more) return page;
    // Long poll: hold until a record arrives (whether it is for this caller is the next page's business) or the timeout.
    const held = feeds.hold(serviceAccountOf(caller), requestSignal);
    try {
      const signal = held.signal;
      const deadline = Date.now() + options.longpollTimeoutMs;
      let current = page;
      while (!signal.aborted && current.records.length === 0 && !current.has_more) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        await sync.feed.waitForNews(decodeFeedCursor(current.next_cursor), left, signal);
        // The bearer's pair was revoked while the request waited: nothing more crosses on it.
        if (signal.aborted && !requestSignal.aborted) throw new LoomError('AUTH_REQUIRED', 'the bearer of this request was revoked');
        current = await sync.feed.page({ ...request, after: decodeFeedCursor(current.next_cursor) });
      }
      return current;
    } finally {
      held.release();
    }
  },
});
