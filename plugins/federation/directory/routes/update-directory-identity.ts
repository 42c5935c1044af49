import { defineRoute } from '../../../../core/plugin/route.js';
import type { JsonObject } from '../../../../core/records/json.js';
import { DirectoryServiceToken } from '../directory-service.js';
import { DIRECTORY_WRITE_ERRORS } from './directory-route-errors.js';
import { DidHashParams, DirectoryOperationSchema, DirectoryReceiptSchema } from './directory-schemas.js';

export const updateDirectoryIdentity = defineRoute({
  operationId: 'updateDirectoryIdentity',
  method: 'POST',
  path: '/directory/update/{hash}',
  summary: "Replace a did:sync identity's keys, services or handle",
  description:
    "The body is a sync_op whose prev is the identity's head (the hash of its last operation), signed by one of the head's rotation keys; it replaces the whole state. " +
    'A stale prev is 409 DIRECTORY_PREV_MISMATCH (the chain never forks); a revoked identity is 410 DIRECTORY_REVOKED. Off unless directory_enabled.',
  tags: ['federation'],
  auth: { scope: 'records:write' },
  request: { params: DidHashParams, body: DirectoryOperationSchema },
  bodyValidation: 'handler',
  responses: { 200: { description: "Accepted: the identity's new head.", schema: DirectoryReceiptSchema } },
  errors: [...DIRECTORY_WRITE_ERRORS],
  inject: { directory: DirectoryServiceToken },
  handler: ({ params, body }, { directory }) => directory.submit('update', params.hash, body as unknown as JsonObject),
});
