import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { conditionalReply, NOT_MODIFIED } from '../../../core/plugin/conditional-reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';

export const getRecord = defineRoute({
  operationId: 'getRecord',
  method: 'GET',
  path: '/v1/records/{id}',
  summary: 'Fetch one record by id',
  description: 'A record never changes: the answer carries `ETag: "<id>"` and `Cache-Control: private, max-age=31536000, immutable`, and `If-None-Match` with that ETag answers 304. Private, because whether a caller may read it depends on its credential.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { params: Type.Object({ id: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Record id, 64 lowercase hex.' }) }) },
  responses: { 200: { description: 'The record.', schema: RecordSchema }, 304: NOT_MODIFIED },
  errors: ['INVALID_SHAPE', 'NOT_FOUND'],
  inject: { reader: RecordReaderToken },
  handler: async ({ params, caller, headers }, { reader }) => {
    // A record the caller may not see answers exactly as a missing one.
    const stored = await reader.get(caller, params.id);
    if (!stored) throw new LoomError('NOT_FOUND', `no record ${params.id}`);
    return conditionalReply(headers, stored.record.id, stored.record, 'private, max-age=31536000, immutable');
  },
});
