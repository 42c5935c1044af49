import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { recordListReply } from '../record-pages.js';
import { Cursor, PageLimit, RecordList } from '../schemas.js';
import { checkThreadId, ThreadParams } from '../thread-param.js';

export const listThreadRecords = defineRoute({
  operationId: 'listThreadRecords',
  method: 'GET',
  path: '/v1/threads/{id}/records',
  summary: 'Records of a thread, in log order',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    params: ThreadParams,
    query: Type.Object({ after: Type.Optional(Cursor), limit: Type.Optional(PageLimit) }, { additionalProperties: false }),
  },
  responses: { 200: { description: 'A page of the thread records.', schema: RecordList } },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  // Written from the records' stored text (record-pages.ts): no parse and re-serialise per request.
  handler: async ({ params, query, caller }, { reader }) =>
    recordListReply(await reader.listByThreadSerialized(caller, checkThreadId(params.id), { after: query.after ? Number(query.after) : 0, limit: query.limit })),
});
