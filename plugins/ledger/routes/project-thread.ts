import { Type } from 'typebox';
import type { ThreadStateValue } from '../../../core/folds/thread-state.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { projectMessages, projectTui } from '../thread-projection.js';
import { checkThreadId, ThreadParams } from '../thread-param.js';

/** Projections read at most this many records; longer threads are truncated and say so. */
const PROJECTION_MAX_RECORDS = 5000;

const MessageSchema = Type.Object(
  {
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system'), Type.Literal('tool')]),
    actor: Type.String(),
    act: Type.String(),
    clock: Type.Integer(),
    record_id: Type.String(),
    content: Type.String(),
  },
  { $id: 'ProjectedMessage' },
);

export const projectThread = defineRoute({
  operationId: 'projectThread',
  method: 'GET',
  path: '/v1/threads/{id}/project',
  summary: 'Readable projection of a thread',
  description: 'format=tui gives a turn-by-turn terminal view in `text`; format=messages gives a chat-style list in `messages`.',
  tags: ['ledger'],
  auth: { scope: 'records:read' },
  request: {
    params: ThreadParams,
    query: Type.Object(
      {
        format: Type.Optional(Type.Union([Type.Literal('tui'), Type.Literal('messages')], { default: 'tui' })),
        width: Type.Optional(Type.Integer({ minimum: 40, maximum: 400, default: 100 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    200: {
      description: 'The projection.',
      schema: Type.Object(
        {
          object: Type.Literal('thread_projection'),
          thread: Type.String(),
          format: Type.Union([Type.Literal('tui'), Type.Literal('messages')]),
          watermark: Type.Integer(),
          truncated: Type.Boolean(),
          text: Type.Optional(Type.String()),
          messages: Type.Optional(Type.Array(MessageSchema)),
        },
        { $id: 'ThreadProjection' },
      ),
    },
  },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ params, query, caller }, { reader }) => {
    const thread = checkThreadId(params.id);
    const records: LoomRecord[] = [];
    let truncated = false;
    let watermark = 0;
    for await (const stored of reader.records(caller, thread)) {
      if (records.length >= PROJECTION_MAX_RECORDS) {
        truncated = true;
        break;
      }
      records.push(stored.record);
      watermark = stored.sequence;
    }
    const format = query.format ?? 'tui';
    const base = { object: 'thread_projection' as const, thread, format, watermark, truncated };
    if (format === 'messages') return { ...base, messages: projectMessages(records) };
    const state = (await reader.threadFold<ThreadStateValue>(caller, 'thread_state', thread)).value;
    return { ...base, text: projectTui(state, records, query.width ?? 100) };
  },
});
