import { Type } from 'typebox';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
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
          system_threads: Type.Array(Type.String(), { description: 'Plugin system threads that folds over coordination work skip, as they skip the reserved threads.' }),
        },
        { $id: 'FoldList' },
      ),
    },
  },
  errors: [],
  inject: { reader: RecordReaderToken },
  handler: (_input, { reader }) => ({ object: 'list' as const, data: reader.listFolds(), system_threads: reader.systemThreads() }),
});
