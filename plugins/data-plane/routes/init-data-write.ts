import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { DataUploadsToken } from '../data-uploads.js';
import { parseDataPath } from '../data-path.js';
import { HashSchema, NamespaceQuery, PathField, UploadStatusSchema } from './data-schemas.js';
import { uploadStatus } from './upload-status.js';

export const initDataWrite = defineRoute({
  operationId: 'initDataWrite',
  method: 'POST',
  path: '/v1/data/write/init',
  summary: 'Start writing a file (step 1 of 3)',
  description:
    'Opens a resumable upload of `size_bytes` bytes to `path`. Then PUT the bytes to upload_url in chunk_size chunks with Content-Range (any order, resumable), then POST /v1/data/write/complete. ' +
    '`precondition.expected_hash`: a hash is compare-and-swap, null is create-only, no precondition is last writer wins (checked now and decided at completion; 409 PRECONDITION_FAILED with {expected_hash, current_hash}). ' +
    'Quota (507 QUOTA_EXCEEDED) and free space (507 STORAGE_FULL) are checked before any byte is sent.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: {
    body: Type.Object(
      {
        path: PathField,
        size_bytes: Type.Integer({ minimum: 0 }),
        content_type: Type.Optional(Type.String({ maxLength: 255, description: '@default application/octet-stream' })),
        precondition: Type.Optional(Type.Object({ expected_hash: Type.Union([HashSchema, Type.Null()]) }, { additionalProperties: false })),
        content_hash: Type.Optional(HashSchema),
        provenance: Type.Optional(
          Type.Object(
            { work_thread: Type.Optional(Type.String({ maxLength: 80 })), goal_summary: Type.Optional(Type.String({ maxLength: 500 })) },
            { additionalProperties: false, description: 'The work this file came from (shown in stat and the provenance feed).' },
          ),
        ),
        namespace: NamespaceQuery,
      },
      { additionalProperties: false },
    ),
  },
  responses: { 201: { description: 'The upload is open.', schema: UploadStatusSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'IS_A_DIRECTORY', 'NOT_A_DIRECTORY', 'PRECONDITION_FAILED', 'PAYLOAD_TOO_LARGE', 'QUOTA_EXCEEDED', 'STORAGE_FULL'],
  inject: { access: DataAccessToken, uploads: DataUploadsToken },
  handler: async ({ body, caller }, { access, uploads }) => {
    const namespace = access.namespaceFor(caller, body.namespace);
    const meta = await uploads.initUpload(caller, namespace, { ...body, path: parseDataPath(body.path) });
    return uploadStatus(meta);
  },
});
