import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { LedgerOptionsToken } from '../config.js';
import { checkThreadId, ThreadParams } from '../thread-param.js';
import { watchThread as openWatch } from '../thread-watch.js';
import { WatchSlotsToken } from '../watch-slots.js';

export const watchThread = defineRoute({
  operationId: 'watchThread',
  method: 'GET',
  path: '/v1/threads/{id}/watch',
  summary: 'Server-sent events of a thread',
  description:
    'text/event-stream. Each record is an event `record` whose id is its sequence and whose data is the record JSON. ' +
    'Resume after a disconnect with the Last-Event-ID header (or ?after=<sequence>): no gap, no duplicate. Comment heartbeats keep the connection alive. ' +
    'At most maxWatchers (1,000 by default) feeds are open at once; past it 503 SERVICE_UNAVAILABLE.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    params: ThreadParams,
    query: Type.Object({ after: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })) }, { additionalProperties: false }),
  },
  responses: { 200: { description: 'An event stream of record events.', contentType: 'text/event-stream' } },
  errors: ['INVALID_SHAPE', 'SERVICE_UNAVAILABLE'],
  inject: { reader: RecordReaderToken, options: LedgerOptionsToken, slots: WatchSlotsToken },
  handler: ({ params, query, headers, signal, caller }, { reader, options, slots }) => {
    const thread = checkThreadId(params.id);
    const lastEventId = headers['last-event-id'];
    if (lastEventId !== undefined && !/^[0-9]{1,16}$/.test(lastEventId)) {
      throw new LoomError('INVALID_SHAPE', 'headers.last-event-id: must be the sequence of the last event received');
    }
    const after = Number(lastEventId ?? query.after ?? 0);
    const release = slots.take();
    if (!release) throw new LoomError('SERVICE_UNAVAILABLE', `${slots.max} thread watches are open, the most this server allows; retry in a few seconds`, { retry_after_ms: 5000 });
    // The feed carries only what the caller may see; a thread it may not see streams nothing, as a missing one does.
    const events = openWatch(reader, caller, { thread, after, heartbeatMs: options.watchHeartbeatMs, signal });
    events.closed.addEventListener('abort', release, { once: true });
    return Reply.events(events);
  },
});
