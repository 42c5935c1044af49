import { Type } from 'typebox';
import { FoldEngineToken } from '../../../core/engine/fold-engine.js';
import type { ThreadStateValue } from '../../../core/folds/thread-state.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordStore } from '../../../storage/contract/record-store.js';
import { PageLimit, ThreadList } from '../schemas.js';

export const listThreads = defineRoute({
  operationId: 'listThreads',
  method: 'GET',
  path: '/v1/threads',
  summary: 'List threads',
  description: 'Threads in id order with their record count, last clock, participants, status and first goal. Page with after=next_cursor.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object({ after: Type.Optional(Type.String({ maxLength: 80 })), limit: Type.Optional(PageLimit) }, { additionalProperties: false }),
  },
  responses: { 200: { description: 'A page of threads.', schema: ThreadList } },
  errors: ['INVALID_SHAPE', 'AUTH_REQUIRED', 'SCOPE_FORBIDDEN'],
  inject: { store: RecordStore, folds: FoldEngineToken },
  handler: async ({ query }, { store, folds }) => {
    const page = await store.listThreads({ after: query.after, limit: query.limit });
    const data = await Promise.all(
      page.items.map(async (summary) => {
        const state = (await folds.thread<ThreadStateValue>('thread_state', summary.thread)).value;
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
        };
      }),
    );
    return { object: 'list' as const, data, has_more: page.nextAfter !== null, next_cursor: page.nextAfter };
  },
});
