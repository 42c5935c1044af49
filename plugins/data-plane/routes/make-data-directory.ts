import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataPlaneToken } from '../data-plane-token.js';
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
  inject: { data: DataPlaneToken },
  handler: async ({ body, caller }, { data }) => {
    const namespace = data.namespaceFor(caller, body.namespace);
    const { created, record } = await data.mkdir(caller, namespace, parseDataPath(body.path));
    return { ok: true as const, namespace, changed: created, record_id: record?.record.id ?? null };
  },
});
