import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { didSyntaxError } from '../../../core/records/did-syntax.js';
import { recordListReply, toRecordList, upTo } from '../record-pages.js';
import { checkThreadId } from '../thread-param.js';
import { Cursor, PageLimit, RecordList } from '../schemas.js';

export const listRecords = defineRoute({
  operationId: 'listRecords',
  method: 'GET',
  path: '/v1/records',
  summary: 'List the records of a thread or of an actor',
  description: 'Exactly one of thread or actor. Records come in log order (ascending sequence); page with after=next_cursor; until bounds the last sequence.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        thread: Type.Optional(Type.String({ maxLength: 80 })),
        actor: Type.Optional(Type.String({ maxLength: 512 })),
        after: Type.Optional(Cursor),
        until: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$', description: 'Only records with a sequence up to this one: a fold answer\'s watermark, to fetch exactly the records it covers.' })),
        limit: Type.Optional(PageLimit),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'A page of records.', schema: RecordList } },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ query, caller }, { reader }) => {
    if ((query.thread === undefined) === (query.actor === undefined)) {
      throw new LoomError('INVALID_SHAPE', 'query: give exactly one of thread or actor');
    }
    // A typo must not read as "no records": a malformed id is refused, as /v1/threads/{id}/state refuses it.
    if (query.thread !== undefined) checkThreadId(query.thread, 'thread');
    const didProblem = query.actor === undefined ? null : didSyntaxError(query.actor);
    if (didProblem) throw new LoomError('INVALID_SHAPE', `actor: ${JSON.stringify(query.actor)} ${didProblem}`);
    const page = { after: query.after ? Number(query.after) : 0, limit: query.limit };
    // A thread's page is written from the records' stored text (record-pages.ts).
    if (query.thread !== undefined && query.until === undefined) return recordListReply(await reader.listByThreadSerialized(caller, query.thread, page));
    const found = query.thread !== undefined ? await reader.listByThread(caller, query.thread, page) : await reader.listByActor(caller, query.actor!, page);
    return toRecordList(query.until === undefined ? found : upTo(found, Number(query.until)));
  },
});
