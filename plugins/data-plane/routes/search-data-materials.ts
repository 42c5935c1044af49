import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeReadsToken } from '../tree-reads.js';
import { DataNodeSchema, NamespaceQuery } from './data-schemas.js';
import { nodeView } from './node-view.js';

export const searchDataMaterials = defineRoute({
  operationId: 'searchDataMaterials',
  method: 'GET',
  path: '/v1/data/materials',
  summary: 'Search files by metadata',
  description:
    'Files whose path, content type, storage class or provenance goal summary contain every word of `q` (case-insensitive; no `q`: every file), most recently changed first. Metadata only: GET /v1/find searches contents.',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      { q: Type.Optional(Type.String({ maxLength: 1000 })), namespace: NamespaceQuery, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) },
      { additionalProperties: false },
    ),
  },
  responses: {
    200: {
      description: 'Matching files.',
      schema: Type.Object({ object: Type.Literal('list'), namespace: Type.String(), q: Type.String(), data: Type.Array(DataNodeSchema) }, { $id: 'MaterialList' }),
    },
  },
  errors: ['INVALID_SHAPE'],
  inject: { access: DataAccessToken, reads: TreeReadsToken },
  handler: async ({ query, caller }, { access, reads }) => {
    const namespace = access.namespaceFor(caller, query.namespace);
    const found = await reads.materials(caller, namespace, query.q, query.limit ?? 20);
    return { object: 'list' as const, namespace, q: query.q ?? '', data: found.map((node) => nodeView(namespace, node)) };
  },
});
