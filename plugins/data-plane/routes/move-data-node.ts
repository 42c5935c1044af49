import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeChangesToken } from '../tree-changes.js';
import { parseDataPath } from '../data-path.js';
import { DataChangeSchema, NamespaceQuery, PathField } from './data-schemas.js';

export const moveDataNode = defineRoute({
  operationId: 'moveDataNode',
  method: 'POST',
  path: '/v1/data/mv',
  summary: 'Move or rename a file or directory',
  description: 'Moves `from` (with everything under it) to `to`, creating missing parents. `to` must not exist; a directory cannot move into its own subtree.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: { body: Type.Object({ from: PathField, to: PathField, namespace: NamespaceQuery }, { additionalProperties: false }) },
  responses: { 200: { description: 'Moved.', schema: DataChangeSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_NOT_FOUND', 'PATH_EXISTS', 'NOT_A_DIRECTORY', 'MOVE_INTO_ITSELF', 'FORBIDDEN', 'NAMESPACE_REJECTED'],
  inject: { access: DataAccessToken, changes: TreeChangesToken },
  handler: async ({ body, caller }, { access, changes }) => {
    const namespace = access.namespaceFor(caller, body.namespace);
    const record = await changes.move(caller, namespace, parseDataPath(body.from, 'from'), parseDataPath(body.to, 'to'));
    return { ok: true as const, namespace, changed: record !== null, record_id: record?.record.id ?? null };
  },
});
