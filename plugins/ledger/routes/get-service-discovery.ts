import { Type } from 'typebox';
import { CapabilityFlagsToken } from '../../../core/plugin/capabilities.js';
import { DiscoveryFactsToken } from '../../../core/plugin/discovery-facts.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ServerInfo } from '../../../core/server/server-info.js';
import { buildCapabilitiesManifest, CapabilitiesManifestSchema } from '../capabilities-manifest.js';

export const getServiceDiscovery = defineRoute({
  operationId: 'getServiceDiscovery',
  method: 'GET',
  path: '/.well-known/service',
  summary: 'Discovery envelope with the capabilities manifest',
  description: 'federation_manifest appears only once federation is enabled and a signing key exists.',
  tags: ['ledger'],
  auth: 'none',
  responses: {
    200: {
      description: 'Discovery envelope.',
      schema: Type.Object({ capabilities_manifest: CapabilitiesManifestSchema, federation_manifest: Type.Optional(Type.Unknown()) }, { $id: 'ServiceDiscovery' }),
    },
  },
  errors: [],
  inject: { info: ServerInfo, flags: CapabilityFlagsToken, facts: DiscoveryFactsToken },
  handler: ({ caller }, { info, flags, facts }) => ({
    // Plugins add sibling keys (federation adds federation_manifest); the capabilities manifest is always the ledger's.
    ...facts.read('discovery'),
    capabilities_manifest: buildCapabilitiesManifest(info, flags, caller, facts),
  }),
});
