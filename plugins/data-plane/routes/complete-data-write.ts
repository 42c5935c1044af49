import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataUploadsToken } from '../data-uploads.js';
import { HashSchema } from './data-schemas.js';

export const completeDataWrite = defineRoute({
  operationId: 'completeDataWrite',
  method: 'POST',
  path: '/v1/data/write/complete',
  summary: 'Finish writing a file (step 3 of 3)',
  description:
    'Checks that every chunk arrived (409 UPLOAD_INCOMPLETE with missing_ranges), hashes the content (422 CONTENT_HASH_MISMATCH against a declared content_hash), decides the precondition ' +
    '(409 PRECONDITION_FAILED with {expected_hash, current_hash}) and the quota, stores the blob and writes the node record.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: { body: Type.Object({ upload_id: Type.String({ maxLength: 64 }), content_hash: Type.Optional(HashSchema) }, { additionalProperties: false }) },
  responses: {
    200: {
      description: 'Written.',
      schema: Type.Object(
        {
          ok: Type.Literal(true),
          content_hash: HashSchema,
          size_bytes: Type.Integer(),
          namespace: Type.String(),
          path: Type.String(),
          record_id: Type.String(),
          deduplicated: Type.Boolean({ description: 'The content was already stored (identical content is stored once).' }),
        },
        { $id: 'WriteResult' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'UPLOAD_NOT_FOUND', 'UPLOAD_INCOMPLETE', 'CONTENT_HASH_MISMATCH', 'PRECONDITION_FAILED', 'IS_A_DIRECTORY', 'NOT_A_DIRECTORY', 'QUOTA_EXCEEDED', 'STORAGE_FULL', 'FORBIDDEN', 'NAMESPACE_REJECTED'],
  inject: { uploads: DataUploadsToken },
  handler: ({ body, caller }, { uploads }) => uploads.complete(caller, body.upload_id, body.content_hash),
});
