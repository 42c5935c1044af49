import { Type } from 'typebox';
import { isAdmin } from '../../../core/access/scopes.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { BlobCollectorToken } from '../blob-collector.js';
import { DataAccessToken } from '../data-access.js';
import { DataQuotasToken } from '../data-quotas.js';
import { NamespaceQuery, UsageSchema } from './data-schemas.js';

export const getDataUsage = defineRoute({
  operationId: 'getDataUsage',
  method: 'GET',
  path: '/v1/data/usage',
  summary: 'Storage used by a namespace, and its quota',
  description:
    'used_bytes counts each distinct content once per namespace; the quota (configuration topic data_quota) caps used_bytes plus the declared sizes of open uploads. ' +
    'For an admin, blob_store adds what the blob store holds for every namespace together (scope server: the blob directory of this server; scope shared: on PostgreSQL, the blobs every server serves): live_bytes (content some file holds) and reclaimable_bytes (content no file holds any more, deleted once unreferenced for grace_seconds, or now by POST /v1/data/gc).',
  tags: ['data'],
  auth: { scope: 'records:read' },
  request: { query: Type.Object({ namespace: NamespaceQuery }, { additionalProperties: false }) },
  responses: { 200: { description: 'Usage and quota.', schema: UsageSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { access: DataAccessToken, quotas: DataQuotasToken, collector: BlobCollectorToken },
  handler: async ({ query, caller }, { access, quotas, collector }) => {
    const usage = await quotas.usage(caller, access.namespaceFor(caller, query.namespace));
    // Instance-wide figures tell of every tenant's files: operators only.
    return { ...usage, blob_store: isAdmin(caller.scopes) ? await collector.usage() : null };
  },
});
