import { defineRoute } from '../../../../core/plugin/route.js';
import { Reply } from '../../../../core/plugin/reply.js';
import type { JsonObject } from '../../../../core/records/json.js';
import { DirectoryServiceToken } from '../directory-service.js';
import { DIRECTORY_WRITE_ERRORS } from './directory-route-errors.js';
import { DirectoryOperationSchema, DirectoryReceiptSchema } from './directory-schemas.js';

export const createDirectoryIdentity = defineRoute({
  operationId: 'createDirectoryIdentity',
  method: 'POST',
  path: '/directory/genesis',
  summary: 'Create a did:sync identity from its signed genesis operation',
  description:
    'The body is a sync_op with prev null, signed by one of its own rotation keys. The identifier is did:sync: + the base32 of the SHA-256 of its canonical JSON. ' +
    'Strict: the exact field set, every syntax, 4,096 bytes at most, a unique handle. 201 with the receipt; refusals write nothing. Off unless directory_enabled.',
  tags: ['federation'],
  auth: { scope: 'records:write' },
  request: { body: DirectoryOperationSchema },
  bodyValidation: 'handler',
  responses: { 201: { description: 'Created; the operation is the first of the identity.', schema: DirectoryReceiptSchema } },
  errors: [...DIRECTORY_WRITE_ERRORS],
  inject: { directory: DirectoryServiceToken },
  handler: async ({ body }, { directory }) => Reply.json(201, await directory.submit('genesis', null, body as unknown as JsonObject)),
});
