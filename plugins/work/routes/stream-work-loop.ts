import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { LedgerOptionsToken, WatchSlotsToken } from '../../ledger/index.js';
import { RunThreadParams } from '../../members/index.js';
import { openRunFeed } from '../run-feed.js';
import { StreamQuery } from '../schemas.js';
import { RunControlToken } from '../work-tokens.js';

export const streamWorkLoop = defineRoute({
  operationId: 'streamWorkLoop',
  method: 'GET',
  path: '/v1/work/loop/{thread}/stream',
  summary: 'Server-sent events of a run',
  description:
    'text/event-stream of the run thread’s records from its start, then as they land: each an event `record` whose id is its sequence. Resume with Last-Event-ID (or ?after=): no gap, no duplicate. ' +
    'Shares the thread-watch cap (503 SERVICE_UNAVAILABLE past it).',
  tags: ['work'],
  auth: { scope: 'records:read' },
  request: { params: RunThreadParams, query: StreamQuery },
  responses: { 200: { description: 'An event stream of record events.', contentType: 'text/event-stream' } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  inject: { reader: RecordReaderToken, options: LedgerOptionsToken, slots: WatchSlotsToken, control: RunControlToken },
  handler: ({ params, query, headers, signal, caller }, { reader, options, slots, control }) => {
    const run = control.row(caller, params.thread);
    const events = openRunFeed({ reader, slots, caller, thread: run.thread, heartbeatMs: options.watchHeartbeatMs, signal, lastEventId: headers['last-event-id'], after: query.after ?? '0' });
    return Reply.events(events);
  },
});

