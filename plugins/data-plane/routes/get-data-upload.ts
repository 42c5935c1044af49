import { defineRoute } from '../../../core/plugin/route.js';
import { DataUploadsToken } from '../data-uploads.js';
import { UploadStatusSchema } from './data-schemas.js';
import { UploadIdParams } from './upload-data-chunk.js';
import { uploadStatus } from './upload-status.js';

export const getDataUpload = defineRoute({
  operationId: 'getDataUpload',
  method: 'GET',
  path: '/v1/blobs/upload/{upload_id}',
  summary: 'Which ranges of an upload arrived',
  description: 'For resuming: received_ranges and missing_ranges (inclusive byte ranges, chunk-aligned). Uploads survive a server restart. Only the caller that opened the upload (the same principal) sees it.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: { params: UploadIdParams },
  responses: { 200: { description: 'The upload’s progress.', schema: UploadStatusSchema } },
  errors: ['UPLOAD_NOT_FOUND'],
  inject: { uploads: DataUploadsToken },
  handler: async ({ params, caller }, { uploads }) => uploadStatus(await uploads.current(caller, params.upload_id)),
});
