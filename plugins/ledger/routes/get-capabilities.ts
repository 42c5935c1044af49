import { CapabilityFlagsToken } from '../../../core/plugin/capabilities.js';
import { DiscoveryFactsToken } from '../../../core/plugin/discovery-facts.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ServerInfo } from '../../../core/server/server-info.js';
import { buildCapabilitiesManifest, CapabilitiesManifestSchema } from '../capabilities-manifest.js';

export const getCapabilities = defineRoute({
  operationId: 'getCapabilities',
  method: 'GET',
  path: '/v1/capabilities',
  summary: 'Capabilities manifest scoped to the caller',
  tags: ['ledger'],
  // Any live bearer may learn what this instance can do; the manifest reports that caller's scopes.
  auth: { scope: null },
  responses: { 200: { description: 'The manifest.', schema: CapabilitiesManifestSchema } },
  errors: [],
  inject: { info: ServerInfo, flags: CapabilityFlagsToken, facts: DiscoveryFactsToken },
  handler: ({ caller }, { info, flags, facts }) => buildCapabilitiesManifest(info, flags, caller, facts),
});
