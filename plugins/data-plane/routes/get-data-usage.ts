import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { DataPlaneToken } from '../data-plane-token.js';
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
  inject: { data: DataPlaneToken },
  handler: async ({ query, caller }, { data }) => data.usage(caller, data.namespaceFor(caller, query.namespace)),
});
