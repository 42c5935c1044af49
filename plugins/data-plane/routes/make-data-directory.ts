import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeChangesToken } from '../tree-changes.js';
import { parseDataPath } from '../data-path.js';
import { DataChangeSchema, NamespaceQuery, PathField } from './data-schemas.js';

export const makeDataDirectory = defineRoute({
  operationId: 'makeDataDirectory',
  method: 'POST',
  path: '/v1/data/mkdir',
  summary: 'Create a directory (and its missing parents)',
  description: 'Idempotent: an existing directory answers changed: false. A file in the way is 409 PATH_EXISTS or NOT_A_DIRECTORY.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: { body: Type.Object({ path: PathField, namespace: NamespaceQuery }, { additionalProperties: false }) },
  responses: { 200: { description: 'Created, or already there.', schema: DataChangeSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_EXISTS', 'NOT_A_DIRECTORY', 'FORBIDDEN', 'NAMESPACE_REJECTED'],
  inject: { access: DataAccessToken, changes: TreeChangesToken },
  handler: async ({ body, caller }, { access, changes }) => {
    const namespace = access.namespaceFor(caller, body.namespace);
    const { created, record } = await changes.mkdir(caller, namespace, parseDataPath(body.path));
    return { ok: true as const, namespace, changed: created, record_id: record?.record.id ?? null };
  },
});
