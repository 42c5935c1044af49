import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { LedgerOptionsToken, WatchSlotsToken } from '../../ledger/index.js';
import { RunThreadParams } from '../../members/index.js';
import { openRunFeed } from '../run-feed.js';
import { EventsQuery } from '../schemas.js';
import { RunControlToken } from '../work-tokens.js';

export const getRunEvents = defineRoute({
  operationId: 'getRunEvents',
  method: 'GET',
  path: '/v1/runs/{thread}/events',
  summary: 'A run’s events',
  description:
    'text/event-stream of the run thread’s records (turns, tool calls and results, provider errors, guardrail verdicts, messages, the outcome), each an event `record` whose id is its sequence. ' +
    '`replay=true` starts at the run’s first record; otherwise at what lands from now. Resume with Last-Event-ID.',
  tags: ['work'],
  auth: { scope: 'records:read' },
  request: { params: RunThreadParams, query: EventsQuery },
  responses: { 200: { description: 'An event stream of record events.', contentType: 'text/event-stream' } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'SERVICE_UNAVAILABLE'],
  inject: { reader: RecordReaderToken, options: LedgerOptionsToken, slots: WatchSlotsToken, control: RunControlToken },
  handler: ({ params, query, headers, signal, caller }, { reader, options, slots, control }) => {
    const run = control.row(caller, params.thread);
    const after = query.after ?? (query.replay === 'true' ? '0' : String(reader.position));
    return Reply.events(openRunFeed({ reader, slots, caller, thread: run.thread, heartbeatMs: options.watchHeartbeatMs, signal, lastEventId: headers['last-event-id'], after }));
  },
});
