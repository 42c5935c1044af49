import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FoldAnswerSchema } from '../../../core/plugin/shared-schemas.js';
import { conditionalReply, NOT_MODIFIED } from '../../../core/plugin/conditional-reply.js';
import { checkThreadId } from '../thread-param.js';

export const getThreadFold = defineRoute({
  operationId: 'getThreadFold',
  method: 'GET',
  path: '/v1/folds/{name}/{key}',
  summary: 'Value of a per-thread fold',
  description: 'key is the thread id.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { params: Type.Object({ name: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }), key: Type.String({ maxLength: 80 }) }) },
  responses: { 200: { description: 'The fold answer; its ETag is the cache_key.', schema: FoldAnswerSchema }, 304: NOT_MODIFIED },
  errors: ['INVALID_SHAPE', 'NOT_FOUND'],
  inject: { reader: RecordReaderToken },
  handler: async ({ params, caller, headers }, { reader }) => {
    // Name first, so an unknown fold is 404 whatever the key.
    const answer = reader.hasFold(params.name) ? await reader.threadFold(caller, params.name, checkThreadId(params.key)) : await reader.globalFold(caller, params.name);
    return conditionalReply(headers, answer.cache_key, answer);
  },
});
