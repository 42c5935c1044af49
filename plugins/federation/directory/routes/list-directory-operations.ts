import { defineRoute } from '../../../../core/plugin/route.js';
import { DirectoryServiceToken } from '../directory-service.js';
import { DidHashParams, DirectoryOperationsSchema } from './directory-schemas.js';

export const listDirectoryOperations = defineRoute({
  operationId: 'listDirectoryOperations',
  method: 'GET',
  path: '/directory/{hash}/operations',
  summary: "A did:sync identity's operations, genesis first",
  description:
    'Every accepted operation with its hash, in chain order, read from its record: the export `loom directory verify` checks offline (identifier, hashes, signatures, prev links, ' +
    'the revoke) and renders the DID document from. Nothing instance-specific: a mirror answers the same bytes. Off unless directory_enabled.',
  tags: ['federation'],
  auth: { scope: 'records:read' },
  request: { params: DidHashParams },
  responses: { 200: { description: 'The operations.', schema: DirectoryOperationsSchema } },
  errors: ['DIRECTORY_DISABLED', 'DIRECTORY_DID_NOT_FOUND'],
  inject: { directory: DirectoryServiceToken },
  handler: ({ params, caller }, { directory }) => directory.operations(caller, params.hash),
});
