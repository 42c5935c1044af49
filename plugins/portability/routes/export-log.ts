import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { didSyntaxError } from '../../../core/records/did-syntax.js';
import { isThreadId } from '../../../core/records/thread-id.js';
import { EXPORT_CONTENT_TYPE, type ExportScope } from '../export-format.js';
import { exportLines } from '../log-export.js';
import { PortabilityToken } from '../portability-service.js';

const SEQUENCE = { pattern: '^[0-9]{1,16}$' };

export const exportLog = defineRoute({
  operationId: 'exportLog',
  method: 'GET',
  path: '/v1/log/export',
  summary: 'Export the log as a portable NDJSON file',
  description:
    'Streams the whole log, or the records of one thread, actor, namespace (and those under it) or sequence range, in sequence order: ' +
    'a header line, one `{sequence, record}` line per record, and an end line with the count and the SHA-256 of everything before it. ' +
    'POST /v1/log/import (or `loom import`) reads it on any server and any storage driver. Admin only: it holds every record, whoever may read it.',
  tags: ['portability'],
  auth: { scope: 'admin' },
  request: {
    query: Type.Object(
      {
        thread: Type.Optional(Type.String({ description: 'Only this thread.' })),
        actor: Type.Optional(Type.String({ description: 'Only records by this actor DID.' })),
        namespace: Type.Optional(Type.String({ description: 'Only this namespace and the ones under it.' })),
        after: Type.Optional(Type.String({ ...SEQUENCE, description: 'Only sequences above this one.' })),
        until: Type.Optional(Type.String({ ...SEQUENCE, description: 'Only sequences up to this one (inclusive).' })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'The export file (NDJSON), streamed.', contentType: EXPORT_CONTENT_TYPE } },
  errors: ['INVALID_SHAPE'],
  inject: { portability: PortabilityToken },
  handler: ({ query, signal }, { portability }) => {
    if (query.thread !== undefined && !isThreadId(query.thread)) throw new LoomError('INVALID_SHAPE', `thread: ${JSON.stringify(query.thread)} is not a thread id (th_ + 64 lowercase hex, or a reserved thread)`);
    const didProblem = query.actor === undefined ? null : didSyntaxError(query.actor);
    if (didProblem) throw new LoomError('INVALID_SHAPE', `actor: ${JSON.stringify(query.actor)} ${didProblem}`);
    if (query.namespace !== undefined && !/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i.test(query.namespace)) {
      throw new LoomError('INVALID_SHAPE', `namespace: ${JSON.stringify(query.namespace)} is not a namespace path (segments separated by /)`);
    }
    const scope: ExportScope = {
      ...(query.thread !== undefined ? { thread: query.thread } : {}),
      ...(query.actor !== undefined ? { actor: query.actor } : {}),
      ...(query.namespace !== undefined ? { namespace: query.namespace } : {}),
      ...(query.after !== undefined ? { after: Number(query.after) } : {}),
      ...(query.until !== undefined ? { until: Number(query.until) } : {}),
    };
    const stream = Readable.from(exportLines({ store: portability.log, loomVersion: portability.loomVersion, instance: portability.instance }, scope, signal), { objectMode: false });
    return Reply.stream(stream, {
      'content-type': `${EXPORT_CONTENT_TYPE}; charset=utf-8`,
      'content-disposition': 'attachment; filename="loom-export.ndjson"',
      'cache-control': 'no-store',
    });
  },
});
