import { Type } from 'typebox';
import { IngestorToken } from '../../../core/engine/ingest.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordInputSchema } from '../../../core/plugin/shared-schemas.js';

/** Records one batch may carry. */
export const BATCH_MAX_RECORDS = 1000;
/** Bytes one batch may carry (1,000 records of about 8 KiB). */
export const BATCH_MAX_BYTES = 8 * 1024 * 1024;

const BatchItem = Type.Object(
  {
    index: Type.Integer({ description: 'Position of the record in the request.' }),
    status: Type.Integer({ description: 'What a single POST /v1/records would have answered: 201 stored, 200 already stored (same id), or the refusal status.' }),
    id: Type.Optional(Type.String({ description: 'The record id (stored or already stored).' })),
    sequence: Type.Optional(Type.Integer({ description: 'Its log sequence.' })),
    code: Type.Optional(Type.String({ description: 'The refusal code (the error catalogue), when refused.' })),
    message: Type.Optional(Type.String()),
  },
  { $id: 'BatchItemResult', additionalProperties: true },
);

export const ingestBatch = defineRoute({
  operationId: 'ingestBatch',
  method: 'POST',
  path: '/v1/records/batch',
  summary: 'Append many records in one request',
  description:
    `A JSON array of record inputs (application/json) or one record per line (application/x-ndjson), at most ${BATCH_MAX_RECORDS} records and ${BATCH_MAX_BYTES / 1024 / 1024} MiB. ` +
    'Each record goes through exactly what POST /v1/records does (validation, the ingest gates, the caller\'s claims) and gets its own result, in order: one refused record does not stop the others. ' +
    'Accepted records are stored together (one group commit) and durable when the answer comes. The answer is 200 whatever the per-record outcomes; `refused` counts the failures.',
  tags: ['ledger'],
  auth: { scope: 'records:write' },
  request: { body: Type.Array(RecordInputSchema, { description: 'The records, in order.', maxItems: BATCH_MAX_RECORDS }) },
  bodyValidation: 'handler',
  ndjson: true,
  maxBodyBytes: BATCH_MAX_BYTES,
  responses: {
    200: {
      description: 'One result per record, in request order.',
      schema: Type.Object(
        {
          object: Type.Literal('batch_result'),
          created: Type.Integer(),
          existing: Type.Integer(),
          refused: Type.Integer(),
          results: Type.Array(BatchItem),
        },
        { $id: 'BatchResult' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INTERNAL'],
  inject: { ingestor: IngestorToken },
  handler: async ({ body, caller }, { ingestor }) => {
    if (!Array.isArray(body)) throw new LoomError('INVALID_SHAPE', 'the body must be a JSON array of records (or NDJSON: one record per line)');
    if (body.length === 0) throw new LoomError('INVALID_SHAPE', 'the batch holds no record');
    if (body.length > BATCH_MAX_RECORDS) throw new LoomError('INVALID_SHAPE', `the batch holds ${body.length} records; at most ${BATCH_MAX_RECORDS} per request`);
    const outcomes = await ingestor.ingestMany({ caller, via: 'api' }, body);
    let created = 0;
    let existing = 0;
    const results = outcomes.map((outcome, index) => {
      if (outcome instanceof LoomError) return { index, status: outcome.status, code: outcome.code, message: outcome.message, ...(outcome.details ?? {}) };
      if (outcome.created) created += 1;
      else existing += 1;
      return { index, status: outcome.created ? 201 : 200, id: outcome.stored.record.id, sequence: outcome.stored.sequence };
    });
    return { object: 'batch_result' as const, created, existing, refused: outcomes.length - created - existing, results };
  },
});
