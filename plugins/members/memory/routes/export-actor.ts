import { Type } from 'typebox';
import { defineRoute } from '../../../../core/plugin/route.js';
import { MemberDidParams } from '../../schemas.js';
import { BundleServiceToken } from '../bundle-service.js';
import { MemberBundleSchema } from '../bundle.js';

export const exportActor = defineRoute({
  operationId: 'exportActor',
  method: 'GET',
  path: '/v1/actors/{did}/export',
  summary: 'Export a member as a bundle (its owner, itself or an operator)',
  description:
    'Identity (did, display_name, category, status), its trust profile by domain (verdicts judged here only), its skills, patterns (none: Loom keeps none yet) and, with include_memories=true, every other memory; ' +
    'bundle_version and a SHA-256 digest of the canonical content. Never the definition: define the member again with the same label where it is imported.',
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: MemberDidParams, query: Type.Object({ include_memories: Type.Boolean({ default: false }) }, { additionalProperties: false }) },
  responses: { 200: { description: 'The bundle.', schema: MemberBundleSchema } },
  errors: ['INVALID_SHAPE', 'ACTOR_UNKNOWN', 'FORBIDDEN'],
  inject: { bundles: BundleServiceToken },
  handler: ({ params, query, caller }, { bundles }) => bundles.export(caller, params.did, query.include_memories),
});
