import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { TreeChangesToken } from '../tree-changes.js';
import { parseDataPath } from '../data-path.js';
import { DataChangeSchema, NamespaceQuery, PathField } from './data-schemas.js';

export const removeDataNode = defineRoute({
  operationId: 'removeDataNode',
  method: 'POST',
  path: '/v1/data/rm',
  summary: 'Remove a file or directory',
  description:
    'A non-empty directory needs recursive: true (409 DIRECTORY_NOT_EMPTY otherwise). The record of the removal stays in the log; content no file holds any more is no longer served (signed URLs included) and its bytes are collected after the grace period (GET /v1/data/usage shows them as reclaimable, POST /v1/data/gc collects now).',
  tags: ['data'],
  auth: { scope: 'records:write' },
  request: { body: Type.Object({ path: PathField, recursive: Type.Optional(Type.Boolean({ default: false })), namespace: NamespaceQuery }, { additionalProperties: false }) },
  responses: { 200: { description: 'Removed; `removed` counts the nodes.', schema: DataChangeSchema } },
  errors: ['INVALID_SHAPE', 'INVALID_PATH', 'PATH_NOT_FOUND', 'DIRECTORY_NOT_EMPTY', 'FORBIDDEN', 'NAMESPACE_REJECTED'],
  inject: { access: DataAccessToken, changes: TreeChangesToken },
  handler: async ({ body, caller }, { access, changes }) => {
    const namespace = access.namespaceFor(caller, body.namespace);
    const { record, removed } = await changes.remove(caller, namespace, parseDataPath(body.path), body.recursive ?? false);
    return { ok: true as const, namespace, changed: true, record_id: record.record.id, removed };
  },
});
