import { Type } from 'typebox';
import type { ThreadStateValue } from '../../../core/folds/thread-state.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { PageLimit, ThreadList } from '../schemas.js';

export const listThreads = defineRoute({
  operationId: 'listThreads',
  method: 'GET',
  path: '/v1/threads',
  summary: 'List threads',
  description: 'Threads in id order with their record count, last clock, participants, status and first goal; archived threads only with include_archived=true (a page may then be short). Page with after=next_cursor.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        after: Type.Optional(Type.String({ maxLength: 80 })),
        limit: Type.Optional(PageLimit),
        include_archived: Type.Optional(Type.Boolean({ default: false, description: 'Also list threads archived by DELETE /v1/threads/{id}.' })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'A page of threads.', schema: ThreadList } },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ query, caller }, { reader }) => {
    const page = await reader.listThreads(caller, { after: query.after, limit: query.limit });
    const rows = await Promise.all(
      page.items.map(async (summary) => {
        const state = (await reader.threadFold<ThreadStateValue>(caller, 'thread_state', summary.thread)).value;
        return {
          object: 'thread' as const,
          thread: summary.thread,
          record_count: summary.recordCount,
          last_clock: state.last_clock,
          participants: state.participants,
          status: state.status,
          first_goal: state.first_goal,
          first_sequence: summary.firstSequence,
          last_sequence: summary.lastSequence,
          archived: state.archived,
        };
      }),
    );
    // Archived threads leave the page, not the cursor: has_more and next_cursor still follow the store's pages.
    const data = query.include_archived ? rows : rows.filter((row) => !row.archived);
    return { object: 'list' as const, data, has_more: page.nextAfter !== null, next_cursor: page.nextAfter };
  },
});
