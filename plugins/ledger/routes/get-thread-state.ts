import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ThreadStateSchema } from '../schemas.js';
import { checkThreadId, ThreadParams } from '../thread-param.js';

export const getThreadState = defineRoute({
  operationId: 'getThreadState',
  method: 'GET',
  path: '/v1/threads/{id}/state',
  summary: 'Folded state of a thread',
  description: 'The thread_state fold: participants, per-actor highest clock (write next with that + 1), record count, last clock, status.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { params: ThreadParams },
  responses: {
    200: {
      description: 'The fold answer.',
      schema: Type.Object({ fold_name: Type.Literal('thread_state'), cache_key: Type.String(), watermark: Type.Integer(), value: ThreadStateSchema }, { $id: 'ThreadStateAnswer' }),
    },
  },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ params, caller }, { reader }) => reader.threadFold(caller, 'thread_state', checkThreadId(params.id)),
});
