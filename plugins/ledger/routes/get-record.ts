import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';

export const getRecord = defineRoute({
  operationId: 'getRecord',
  method: 'GET',
  path: '/v1/records/{id}',
  summary: 'Fetch one record by id',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { params: Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Record id, 64 lowercase hex.' }) }) },
  responses: { 200: { description: 'The record.', schema: RecordSchema } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND'],
  inject: { reader: RecordReaderToken },
  handler: async ({ params, caller }, { reader }) => {
    // A record the caller may not see answers exactly as a missing one.
    const stored = await reader.get(caller, params.id);
    if (!stored) throw new LoomError('NOT_FOUND', `no record ${params.id}`);
    return stored.record;
  },
});
