import { Type } from 'typebox';
import { FoldEngineToken } from '../../../core/engine/fold-engine.js';
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
  errors: ['INVALID_SHAPE', 'AUTH_REQUIRED', 'SCOPE_FORBIDDEN'],
  inject: { folds: FoldEngineToken },
  handler: async ({ params }, { folds }) => {
    const thread = checkThreadId(params.id);
    const { state, watermark } = await folds.threadState<ThreadState>('thread_state', thread);
    return {
      object: 'list' as const,
      thread,
      watermark,
      data: participantRows(state).map((p) => ({ object: 'participant' as const, ...p, next_clock: p.highest_clock + 1 })),
    };
  },
});
