import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { parseRecordQuery } from '../../../storage/contract/query/parse-query.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { isThreadId } from '../../../core/records/thread-id.js';
import { RecordQueryBody, RecordQueryResult } from '../schemas.js';

export const queryRecords = defineRoute({
  operationId: 'queryRecords',
  method: 'POST',
  path: '/v1/records/query',
  summary: 'Structured query over records',
  description:
    'Operators $eq $ne $gt $gte $lt $lte $in $nin $like $ilike $regex $exists $and $or $not over columns ' +
    '(id, thread, actor, act, clock, data_type, judged_by, namespace, created_at, sequence) and body.<path>. ' +
    'limit defaults to 100 and is clamped to 1000; capped is true when more rows match beyond the page.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: { body: RecordQueryBody },
  // parseRecordQuery gives the precise INVALID_QUERY messages.
  bodyValidation: 'handler',
  invalidInput: 'INVALID_QUERY',
  responses: { 200: { description: 'Matching records.', schema: RecordQueryResult } },
  errors: ['INVALID_QUERY', 'INTERNAL', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ body, caller }, { reader }) => {
    // A malformed thread can never match: refused, so a typo does not read as "no records".
    const thread = (body as { thread?: unknown } | undefined)?.thread;
    if (typeof thread === 'string' && !isThreadId(thread)) throw new LoomError('INVALID_QUERY', `thread ${JSON.stringify(thread)} is not a thread id (th_ + 64 lowercase hex, or a reserved thread)`);
    const query = parseRecordQuery(body ?? {});
    if (!reader.storeCapabilities.structuredQuery) throw new LoomError('INVALID_QUERY', `the ${reader.storeCapabilities.backend} store does not support structured queries`);
    // matched_total counts what this caller may see (spec §4.2).
    const result = await reader.query(caller, query);
    return {
      object: 'list' as const,
      data: result.items.map((stored) => stored.record),
      sequences: result.items.map((stored) => stored.sequence),
      capped: result.capped,
      matched_total: result.matchedTotal,
      ...(query.explain && result.plan ? { plan: result.plan } : {}),
    };
  },
});
