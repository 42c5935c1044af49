import { defineRoute } from '../../../../core/plugin/route.js';
import type { JsonObject } from '../../../../core/records/json.js';
import { DirectoryServiceToken } from '../directory-service.js';
import { DIRECTORY_WRITE_ERRORS } from './directory-route-errors.js';
import { DidHashParams, DirectoryReceiptSchema, SyncRevokeSchema } from './directory-schemas.js';

export const revokeDirectoryIdentity = defineRoute({
  operationId: 'revokeDirectoryIdentity',
  method: 'POST',
  path: '/directory/revoke/{hash}',
  summary: 'Revoke a did:sync identity (terminal)',
  description:
    "The body is a sync_revoke whose prev is the identity's head, signed by one of the head's rotation keys. Terminal: the DID document is gone (410), the handle is free, " +
    'and every later operation is refused with 410 DIRECTORY_REVOKED. Off unless directory_enabled.',
  tags: ['federation'],
  auth: { scope: 'records:write' },
  request: { params: DidHashParams, body: SyncRevokeSchema },
  bodyValidation: 'handler',
  responses: { 200: { description: 'Revoked.', schema: DirectoryReceiptSchema } },
  errors: [...DIRECTORY_WRITE_ERRORS],
  inject: { directory: DirectoryServiceToken },
  handler: ({ params, body }, { directory }) => directory.submit('revoke', params.hash, body as unknown as JsonObject),
});
