import { Type } from 'typebox';
import { FoldEngineToken } from '../../../core/engine/fold-engine.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FoldAnswerSchema } from '../../../core/plugin/shared-schemas.js';
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
  responses: { 200: { description: 'The fold answer.', schema: FoldAnswerSchema } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'AUTH_REQUIRED', 'SCOPE_FORBIDDEN'],
  inject: { folds: FoldEngineToken },
  handler: ({ params }, { folds }) => {
    // Name first, so an unknown fold is 404 whatever the key.
    if (!folds.has(params.name)) return folds.global(params.name);
    return folds.thread(params.name, checkThreadId(params.key));
  },
});
