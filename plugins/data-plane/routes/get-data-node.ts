import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeReadsToken } from '../tree-reads.js';
import { BlobReadsToken } from '../blob-reads.js';
import { parseDataPath } from '../data-path.js';
import { DataNodeSchema, NamespaceQuery, PathField } from './data-schemas.js';
import { nodeView } from './node-view.js';

export const MaterialNodeSchema = Type.Object(
  {
    ...DataNodeSchema.properties,
    object: Type.Literal('data_node'),
    held: Type.Boolean({ description: 'Whether this instance holds the bytes (a federated node may name content held elsewhere).' }),
    blob_path: Type.String({ description: 'GET it (with a bearer) for the bytes; POST /v1/data/read-url for a shareable link.' }),
  },
  { $id: 'MaterialNode' },
);

export const getDataNode = defineRoute({
  operationId: 'getDataNode',
  method: 'GET',
  path: '/v1/data/node',
  summary: 'One material (a file node)',
  description: 'The file at `path` with its provenance, whether its bytes are held here, and where to read them. Directories are not materials (409 IS_A_DIRECTORY).',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: { query: Type.Object({ path: PathField, namespace: NamespaceQuery }, { additionalProperties: false }) },
  responses: { 200: { description: 'The material node.', schema: MaterialNodeSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_NOT_FOUND', 'IS_A_DIRECTORY'],
  inject: { access: DataAccessToken, reads: TreeReadsToken, blobs: BlobReadsToken },
  handler: async ({ query, caller }, { access, reads, blobs }) => {
    const namespace = access.namespaceFor(caller, query.namespace);
    const path = parseDataPath(query.path);
    const node = await reads.stat(caller, namespace, path);
    if (node.kind !== 'file') throw new LoomError('IS_A_DIRECTORY', `${path} is a directory; list it, or name a file`);
    const held = await blobs.blobSize(node.content_hash!).then(
      () => true,
      () => false,
    );
    return { ...nodeView(namespace, node), held, blob_path: `/v1/blobs/${node.content_hash}` };
  },
});
