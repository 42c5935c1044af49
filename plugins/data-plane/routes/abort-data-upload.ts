import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataUploadsToken } from '../data-uploads.js';
import { UploadIdParams } from './upload-data-chunk.js';

export const abortDataUpload = defineRoute({
  operationId: 'abortDataUpload',
  method: 'DELETE',
  path: '/v1/blobs/upload/{upload_id}',
  summary: 'Abandon an upload',
  description: 'Removes the upload and its bytes now instead of at expiry.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: { params: UploadIdParams },
  responses: { 200: { description: 'Removed.', schema: Type.Object({ ok: Type.Literal(true), upload_id: Type.String(), aborted: Type.Literal(true) }) } },
  errors: ['UPLOAD_NOT_FOUND'],
  inject: { uploads: DataUploadsToken },
  handler: async ({ params, caller }, { uploads }) => {
    await uploads.abort(caller, params.upload_id);
    return { ok: true as const, upload_id: params.upload_id, aborted: true as const };
  },
});
