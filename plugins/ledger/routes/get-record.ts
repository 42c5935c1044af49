import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { RecordStore } from '../../../storage/contract/record-store.js';

export const getRecord = defineRoute({
  operationId: 'getRecord',
  method: 'GET',
  path: '/v1/records/{id}',
  summary: 'Fetch one record by id',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { params: Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Record id, 64 lowercase hex.' }) }) },
  responses: { 200: { description: 'The record.', schema: RecordSchema } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'AUTH_REQUIRED', 'SCOPE_FORBIDDEN'],
  inject: { store: RecordStore },
  handler: async ({ params }, { store }) => {
    const stored = await store.get(params.id);
    if (!stored) throw new LoomError('NOT_FOUND', `no record ${params.id}`);
    return stored.record;
  },
});
