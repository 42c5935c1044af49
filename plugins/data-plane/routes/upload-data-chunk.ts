import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataUploadsToken } from '../data-uploads.js';
import { UploadStatusSchema } from './data-schemas.js';
import { uploadStatus } from './upload-status.js';

export const UploadIdParams = Type.Object({ upload_id: Type.String({ maxLength: 64, description: 'upload_id from POST /v1/data/write/init.' }) }, { additionalProperties: false });

/** Chunks up to 256 MiB (the largest chunk size) plus nothing: the Content-Range decides the exact length. */
const MAX_CHUNK_BYTES = 256 * 1024 * 1024;

export const uploadDataChunk = defineRoute({
  operationId: 'uploadDataChunk',
  method: 'PUT',
  path: '/v1/blobs/upload/{upload_id}',
  summary: 'Send chunks of an upload (step 2 of 3)',
  description:
    'The body is raw bytes; `Content-Range: bytes <start>-<end>/<total>` places them. A PUT covers whole chunks: it starts at a multiple of chunk_size and ends at a chunk boundary or the last byte. ' +
    'Chunks count once stored durably; re-sending a chunk replaces it. After a failure, GET this URL for missing_ranges and send only those.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: {
    params: UploadIdParams,
    headers: Type.Object({ 'content-range': Type.Optional(Type.String({ maxLength: 100, description: 'bytes <start>-<end>/<total>' })) }),
    raw: { description: 'The bytes of the chunks Content-Range names.', maxBytes: MAX_CHUNK_BYTES },
  },
  responses: { 200: { description: 'Stored; the upload’s progress.', schema: UploadStatusSchema } },
  errors: ['UPLOAD_NOT_FOUND', 'INVALID_CONTENT_RANGE', 'CONTENT_LENGTH_MISMATCH', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'QUOTA_EXCEEDED', 'STORAGE_FULL'],
  inject: { uploads: DataUploadsToken },
  handler: async ({ params, headers, raw, caller }, { uploads }) => uploadStatus(await uploads.putChunk(caller, params.upload_id, headers['content-range'], raw)),
});
