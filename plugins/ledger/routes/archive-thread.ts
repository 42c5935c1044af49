import { Type } from 'typebox';
import { SYSTEM } from '../../../core/access/caller.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { THREAD_ARCHIVE_KIND, type ThreadStateValue } from '../../../core/folds/thread-state.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { checkThreadId, ThreadParams } from '../thread-param.js';

export const archiveThread = defineRoute({
  operationId: 'archiveThread',
  method: 'DELETE',
  path: '/v1/threads/{id}',
  summary: 'Archive a thread (nothing is deleted)',
  description:
    'Records are never deleted: this writes an archival DO on the thread (body.kind core.thread.archive.v1, archived: true) as the caller. ' +
    'The thread leaves GET /v1/threads (include_archived=true still lists it); its records, state and folds stay readable. ' +
    'Archiving again is a no-op; a later record of that kind with archived: false restores it.',
  tags: ['ledger'],
  auth: { scope: 'threads:write' },
  request: { params: ThreadParams },
  responses: {
    200: {
      description: 'Archived.',
      schema: Type.Object(
        { object: Type.Literal('thread'), thread: Type.String(), archived: Type.Literal(true), record: Type.Union([RecordSchema, Type.Null()], { description: 'The archival record; null when the thread was already archived.' }) },
        { $id: 'ArchivedThread' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'FORBIDDEN', 'DID_CLAIM_DENIED'],
  inject: { writer: RecordWriterToken, reader: RecordReaderToken },
  handler: async ({ params, caller }, { writer, reader }) => {
    const thread = checkThreadId(params.id);
    // threads:write administers threads whether or not the caller may read their records; the write itself still passes the gates.
    const state = (await reader.threadFold<ThreadStateValue>(SYSTEM, 'thread_state', thread)).value;
    if (state.record_count === 0) throw new LoomError('NOT_FOUND', `no thread ${thread}`);
    if (state.archived) return { object: 'thread' as const, thread, archived: true as const, record: null };
    const { stored } = await writer.appendAs(caller, { thread, act: 'DO', body: { kind: THREAD_ARCHIVE_KIND, archived: true } });
    return { object: 'thread' as const, thread, archived: true as const, record: stored.record };
  },
});
