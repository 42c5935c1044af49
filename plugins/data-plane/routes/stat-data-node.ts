import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeReadsToken } from '../tree-reads.js';
import { parseDataPath } from '../data-path.js';
import { DataNodeSchema, NamespaceQuery, PathField } from './data-schemas.js';
import { nodeView } from './node-view.js';

export const statDataNode = defineRoute({
  operationId: 'statDataNode',
  method: 'GET',
  path: '/v1/data/stat',
  summary: 'Metadata of a file or directory',
  description: 'Kind, size, content hash, content type, pin state, times and provenance of the node at `path`.',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: { query: Type.Object({ path: PathField, namespace: NamespaceQuery }, { additionalProperties: false }) },
  responses: { 200: { description: 'The node.', schema: DataNodeSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_NOT_FOUND'],
  inject: { access: DataAccessToken, reads: TreeReadsToken },
  handler: async ({ query, caller }, { access, reads }) => {
    const namespace = access.namespaceFor(caller, query.namespace);
    return nodeView(namespace, await reads.stat(caller, namespace, parseDataPath(query.path)));
  },
});
