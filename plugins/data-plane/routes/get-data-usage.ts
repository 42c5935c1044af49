import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataAccessToken } from '../data-access.js';
import { DataQuotasToken } from '../data-quotas.js';
import { NamespaceQuery, UsageSchema } from './data-schemas.js';

export const getDataUsage = defineRoute({
  operationId: 'getDataUsage',
  method: 'GET',
  path: '/v1/data/usage',
  summary: 'Storage used by a namespace, and its quota',
  description: 'used_bytes counts each distinct content once per namespace; the quota (configuration topic data_quota) caps used_bytes plus the declared sizes of open uploads.',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: { query: Type.Object({ namespace: NamespaceQuery }, { additionalProperties: false }) },
  responses: { 200: { description: 'Usage and quota.', schema: UsageSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { access: DataAccessToken, quotas: DataQuotasToken },
  handler: async ({ query, caller }, { access, quotas }) => quotas.usage(caller, access.namespaceFor(caller, query.namespace)),
});
