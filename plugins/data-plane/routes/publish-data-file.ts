import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeChangesToken } from '../tree-changes.js';
import { parseDataPath } from '../data-path.js';
import { DataChangeSchema, NamespaceQuery, PathField } from './data-schemas.js';

export const publishDataFile = defineRoute({
  operationId: 'publishDataFile',
  method: 'POST',
  path: '/v1/data/publish',
  summary: 'Promote a file to a durable artifact',
  description: 'Pins the file’s current content (pin_state: pinned) with a storage class (default `durable`). Writing the path again makes the new content unpinned until it is published.',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: {
    body: Type.Object(
      { path: PathField, storage_class: Type.Optional(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,31}$', default: 'durable' })), namespace: NamespaceQuery },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'Published.', schema: DataChangeSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_NOT_FOUND', 'IS_A_DIRECTORY', 'FORBIDDEN', 'NAMESPACE_REJECTED'],
  inject: { access: DataAccessToken, changes: TreeChangesToken },
  handler: async ({ body, caller }, { access, changes }) => {
    const namespace = access.namespaceFor(caller, body.namespace);
    const storageClass = body.storage_class ?? 'durable';
    const record = await changes.publish(caller, namespace, parseDataPath(body.path), storageClass);
    return { ok: true as const, namespace, changed: true, record_id: record.record.id, storage_class: storageClass };
  },
});
