import { defineRoute } from '../../../../core/plugin/route.js';
import { Reply } from '../../../../core/plugin/reply.js';
import { DirectoryServiceToken } from '../directory-service.js';
import { DidHashParams, SyncDidDocumentSchema } from './directory-schemas.js';

export const getDirectoryDidDocument = defineRoute({
  operationId: 'getDirectoryDidDocument',
  method: 'GET',
  path: '/directory/{hash}/did.json',
  summary: "A did:sync identity's DID document",
  description:
    'Rendered from the current operation as canonical JSON: the same bytes on every instance holding the same operations, and what `loom directory verify` reproduces offline. ' +
    'A revoked identity has none: 410 DIRECTORY_REVOKED. Off unless directory_enabled.',
  tags: ['federation'],
  auth: { scope: 'records:read' },
  request: { params: DidHashParams },
  responses: { 200: { description: 'The DID document (canonical JSON).', schema: SyncDidDocumentSchema } },
  errors: ['DIRECTORY_DISABLED', 'DIRECTORY_DID_NOT_FOUND', 'DIRECTORY_REVOKED'],
  inject: { directory: DirectoryServiceToken },
  // The exact bytes: a JSON reply would be re-serialised in insertion order.
  handler: ({ params }, { directory }) => Reply.text(200, directory.document(params.hash), 'application/json; charset=utf-8'),
});
