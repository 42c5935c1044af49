import { Type } from 'typebox';
import { FoldEngineToken } from '../../../core/engine/fold-engine.js';
import { defineRoute } from '../../../core/plugin/route.js';

export const listFolds = defineRoute({
  operationId: 'listFolds',
  method: 'GET',
  path: '/v1/folds',
  summary: 'Registered folds',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  responses: {
    200: {
      description: 'Every fold this instance computes.',
      schema: Type.Object(
        {
          object: Type.Literal('list'),
          data: Type.Array(Type.Object({ name: Type.String(), scope: Type.Union([Type.Literal('thread'), Type.Literal('global')]), description: Type.String() })),
        },
        { $id: 'FoldList' },
      ),
    },
  },
  errors: ['AUTH_REQUIRED', 'SCOPE_FORBIDDEN'],
  inject: { folds: FoldEngineToken },
  handler: (_input, { folds }) => ({ object: 'list' as const, data: folds.list() }),
});
