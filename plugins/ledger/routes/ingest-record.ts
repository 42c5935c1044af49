import { IngestorToken } from '../../../core/engine/ingest.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordInputSchema, RecordSchema } from '../../../core/plugin/shared-schemas.js';

export const ingestRecord = defineRoute({
  operationId: 'ingestRecord',
  method: 'POST',
  path: '/v1/records',
  summary: 'Append a record',
  description:
    'Validates, hashes and stores a record. 201 for a new record; 200 with the stored record for an identical resend (same id). ' +
    'The same (actor, thread, clock) with other content is 409 DUPLICATE_CLOCK: increment the clock and retry.',
  tags: ['ledger'],
  auth: { scope: 'records:write' },
  request: { body: RecordInputSchema },
  // The handler's validator names the field and the rule, more precisely than a schema can.
  bodyValidation: 'handler',
  responses: {
    201: { description: 'Stored; the record with its id.', schema: RecordSchema },
    200: { description: 'Already stored (idempotent resend); the stored record.', schema: RecordSchema },
  },
  errors: ['INVALID_SHAPE', 'NAMESPACE_REJECTED', 'DUPLICATE_CLOCK', 'JUDGED_BY_CONFLICT', 'FORBIDDEN', 'SCOPE_FORBIDDEN', 'DID_CLAIM_DENIED', 'INTERNAL', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { ingestor: IngestorToken },
  handler: async ({ body, caller }, { ingestor }) => {
    const { stored, created } = await ingestor.ingest({ caller, via: 'api' }, body);
    return Reply.json(created ? 201 : 200, stored.record, created ? { location: `/v1/records/${stored.record.id}` } : {});
  },
});
