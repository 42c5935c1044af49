import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { DataAccessToken } from '../data-access.js';
import { TreeReadsToken } from '../tree-reads.js';
import { parseDataPath, ROOT } from '../data-path.js';
import { DataListingSchema, NamespaceQuery } from './data-schemas.js';
import { nodeView } from './node-view.js';

function decodeCursor(cursor: string): string {
  const path = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!path.startsWith('/')) throw new LoomError('INVALID_SHAPE', 'cursor is not one this route answered');
  return path;
}

export const listDataDirectory = defineRoute({
  operationId: 'listDataDirectory',
  method: 'GET',
  path: '/v1/data/list',
  summary: 'List a directory',
  description: 'The files and directories directly under `path` (default `/`), by name, paged with `cursor`.',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        path: Type.Optional(Type.String({ maxLength: 16384, description: 'Directory to list. @default /' })),
        namespace: NamespaceQuery,
        cursor: Type.Optional(Type.String({ maxLength: 16384, description: 'cursor of the previous page.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'One page of the directory.', schema: DataListingSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_NOT_FOUND', 'NOT_A_DIRECTORY'],
  inject: { access: DataAccessToken, reads: TreeReadsToken },
  handler: async ({ query, caller }, { access, reads }) => {
    const namespace = access.namespaceFor(caller, query.namespace);
    const path = parseDataPath(query.path ?? ROOT);
    const limit = query.limit ?? 100;
    const { entries, next, watermark } = await reads.list(caller, namespace, path, query.cursor === undefined ? undefined : decodeCursor(query.cursor), limit);
    return {
      object: 'list' as const,
      namespace,
      path,
      watermark,
      entries: entries.map((node) => nodeView(namespace, node)),
      cursor: next === null ? null : Buffer.from(next, 'utf8').toString('base64url'),
      has_more: next !== null,
    };
  },
});
