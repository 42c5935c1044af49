import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FoldAnswerSchema } from '../../../core/plugin/shared-schemas.js';
import { conditionalReply, NOT_MODIFIED } from '../../../core/plugin/conditional-reply.js';

export const getGlobalFold = defineRoute({
  operationId: 'getGlobalFold',
  method: 'GET',
  path: '/v1/folds/{name}',
  summary: 'Value of a global fold',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { params: Type.Object({ name: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }) }) },
  responses: { 200: { description: 'The fold answer; its ETag is the cache_key.', schema: FoldAnswerSchema }, 304: NOT_MODIFIED },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'SCOPE_FORBIDDEN'],
  inject: { reader: RecordReaderToken },
  handler: async ({ params, caller, headers }, { reader }) => {
    const answer = await reader.globalFold(caller, params.name);
    return conditionalReply(headers, answer.cache_key, answer);
  },
});
