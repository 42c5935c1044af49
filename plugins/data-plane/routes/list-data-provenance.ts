import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeReadsToken } from '../tree-reads.js';
import { parseDataPath, ROOT } from '../data-path.js';
import { NamespaceQuery } from './data-schemas.js';

export const listDataProvenance = defineRoute({
  operationId: 'listDataProvenance',
  method: 'GET',
  path: '/v1/data/provenance',
  summary: 'Who made what: the made-by feed',
  description:
    'Every write and publication in the namespace (under `path`, default `/`) in log order, each with the actor, its clock, the content and the work it came from. Page with after=next_cursor. Moves and removals are not provenance and are left out.',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        path: Type.Optional(Type.String({ maxLength: 16384 })),
        namespace: NamespaceQuery,
        after: Type.Optional(Type.String({ pattern: '^\\d{1,16}$', description: 'next_cursor of the previous page.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    200: {
      description: 'A page of the feed.',
      schema: Type.Object(
        {
          object: Type.Literal('list'),
          namespace: Type.String(),
          path: Type.String(),
          data: Type.Array(
            Type.Object(
              {
                op: Type.Union([Type.Literal('write'), Type.Literal('publish')]),
                path: Type.String(),
                actor: Type.String(),
                clock: Type.Integer(),
                sequence: Type.Integer(),
                record_id: Type.String(),
                at: Type.String({ format: 'date-time' }),
              },
              { additionalProperties: true, $id: 'ProvenanceEntry' },
            ),
          ),
          next_cursor: Type.Union([Type.String(), Type.Null()]),
          has_more: Type.Boolean(),
        },
        { $id: 'ProvenanceFeed' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'INVALID_PATH'],
  inject: { access: DataAccessToken, reads: TreeReadsToken },
  handler: async ({ query, caller }, { access, reads }) => {
    const namespace = access.namespaceFor(caller, query.namespace);
    return reads.provenance(caller, namespace, parseDataPath(query.path ?? ROOT), Number(query.after ?? 0), query.limit ?? 100);
  },
});
