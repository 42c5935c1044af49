import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { participantRows, type ThreadState } from '../../../core/folds/thread-state.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ParticipantSchema } from '../schemas.js';
import { checkThreadId, ThreadParams } from '../thread-param.js';

export const getThreadParticipants = defineRoute({
  operationId: 'getThreadParticipants',
  method: 'GET',
  path: '/v1/threads/{id}/participants',
  summary: 'Actors who wrote on a thread',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { params: ThreadParams },
  responses: {
    200: {
      description: 'Participants in order of first appearance.',
      schema: Type.Object({ object: Type.Literal('list'), thread: Type.String(), watermark: Type.Integer(), data: Type.Array(ParticipantSchema) }, { $id: 'ParticipantList' }),
    },
  },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ params, caller }, { reader }) => {
    const thread = checkThreadId(params.id);
    const { state, watermark } = await reader.threadFoldState<ThreadState>(caller, 'thread_state', thread);
    return {
      object: 'list' as const,
      thread,
      watermark,
      data: participantRows(state).map((p) => ({ object: 'participant' as const, ...p, next_clock: p.highest_clock + 1 })),
    };
  },
});
