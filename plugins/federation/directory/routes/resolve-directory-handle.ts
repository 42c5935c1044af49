import { defineRoute } from '../../../../core/plugin/route.js';
import { DirectoryServiceToken } from '../directory-service.js';
import { DirectoryHandleSchema, HandleParams } from './directory-schemas.js';

export const resolveDirectoryHandle = defineRoute({
  operationId: 'resolveDirectoryHandle',
  method: 'GET',
  path: '/directory/handle/{handle}',
  summary: 'Resolve a handle to the did:sync identity that holds it',
  description:
    'Handles are unique among live identities, first come first served in log order; a revoke or a change of handle frees the old one. ' +
    "Check the answer against the identity's DID document (alsoKnownAs sync://<handle>). Off unless directory_enabled.",
  tags: ['federation'],
  auth: { scope: 'records:read' },
  request: { params: HandleParams },
  responses: { 200: { description: 'The identity holding the handle.', schema: DirectoryHandleSchema } },
  errors: ['DIRECTORY_DISABLED', 'DIRECTORY_HANDLE_NOT_FOUND'],
  inject: { directory: DirectoryServiceToken },
  handler: ({ params }, { directory }) => directory.handle(params.handle),
});
