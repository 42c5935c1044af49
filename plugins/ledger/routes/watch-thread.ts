import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { LedgerOptionsToken } from '../config.js';
import { checkThreadId, ThreadParams } from '../thread-param.js';
import { watchThread as openWatch } from '../thread-watch.js';

export const watchThread = defineRoute({
  operationId: 'watchThread',
  method: 'GET',
  path: '/v1/threads/{id}/watch',
  summary: 'Server-sent events of a thread',
  description:
    'text/event-stream. Each record is an event `record` whose id is its sequence and whose data is the record JSON. ' +
    'Resume after a disconnect with the Last-Event-ID header (or ?after=<sequence>): no gap, no duplicate. Comment heartbeats keep the connection alive.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    params: ThreadParams,
    query: Type.Object({ after: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })) }, { additionalProperties: false }),
  },
  responses: { 200: { description: 'An event stream of record events.', contentType: 'text/event-stream' } },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken, options: LedgerOptionsToken },
  handler: ({ params, query, headers, signal, caller }, { reader, options }) => {
    const thread = checkThreadId(params.id);
    const lastEventId = headers['last-event-id'];
    if (lastEventId !== undefined && !/^[0-9]{1,16}$/.test(lastEventId)) {
      throw new LoomError('INVALID_SHAPE', 'headers.last-event-id: must be the sequence of the last event received');
    }
    const after = Number(lastEventId ?? query.after ?? 0);
    // The feed carries only what the caller may see; a thread it may not see streams nothing, as a missing one does.
    const stream = openWatch(reader, caller, { thread, after, heartbeatMs: options.watchHeartbeatMs, signal });
    return Reply.stream(stream, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      // Hapi would gzip and buffer the stream for clients that accept gzip.
      'content-encoding': 'identity',
      'x-accel-buffering': 'no',
    });
  },
});
