import { Type } from 'typebox';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { newThreadNonce, taskThreadId } from '../../../core/records/thread-id.js';
import { nodeSha256Hex } from '../../../core/engine/native-hash.js';

export const createThread = defineRoute({
  operationId: 'createThread',
  method: 'POST',
  path: '/v1/threads',
  summary: 'Open a thread with a server-minted id',
  description:
    'Mints a task thread id from the alias (or `thread`) and a fresh server nonce, and writes the opening INTEND as the caller ' +
    '(its X-Service-Actor claim, else its own DID) at clock 0. The body fields become the INTEND body (task: true is added).',
  tags: ['ledger'],
  auth: { scope: 'threads:write' },
  request: {
    body: Type.Object(
      {
        goal: Type.String({ minLength: 1, maxLength: 8192 }),
        alias: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Human alias the id derives from. @default "thread"' })),
        assigned_to: Type.Optional(Type.String({ maxLength: 512 })),
        domain: Type.Optional(Type.String({ maxLength: 200 })),
        priority: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Integer()])),
        labels: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 64 })),
        namespace: Type.Optional(Type.String({ maxLength: 256 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    201: {
      description: 'The thread id and its opening record.',
      schema: Type.Object({ object: Type.Literal('thread'), thread: Type.String(), record: RecordSchema }, { $id: 'CreatedThread' }),
    },
  },
  errors: ['INVALID_SHAPE', 'NAMESPACE_REJECTED', 'FORBIDDEN', 'DID_CLAIM_DENIED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { writer: RecordWriterToken },
  handler: async ({ body, caller }, { writer }) => {
    const alias = body.alias ?? 'thread';
    const thread = taskThreadId(alias, newThreadNonce(), nodeSha256Hex);
    const { stored } = await writer.appendAs(caller, { thread, act: 'INTEND', body: { ...body, alias, task: true } });
    return Reply.json(201, { object: 'thread' as const, thread, record: stored.record }, { location: `/v1/threads/${thread}/state` });
  },
});
