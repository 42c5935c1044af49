import { Type } from 'typebox';
import { defineRoute } from '../../../../core/plugin/route.js';
import { Reply } from '../../../../core/plugin/reply.js';
import { MemberDidParams } from '../../schemas.js';
import { BundleServiceToken } from '../bundle-service.js';
import { MemberBundleSchema } from '../bundle.js';
import { ImportResultSchema } from '../memory-schemas.js';

/** Spec §8. */
const DEFAULT_DISCOUNT = 0.5;

export const importActor = defineRoute({
  operationId: 'importActor',
  method: 'POST',
  path: '/v1/actors/{did}/import',
  summary: 'Import a bundle into a member defined here (its owner or an operator)',
  description:
    'Checks the whole bundle (version, digest, every memory and trust figure, names already held) before the first write: 400 IMPORT_FAILED and nothing written when it does not apply. ' +
    'merge=false refuses a bundle naming a memory the member holds; merge=true keeps those and adds the rest. Trust enters the trust fold weighted by trust_discount (default 0.5), never scoring above what the source showed; ' +
    "it replaces the member's previous import. dry_run answers 200 and writes nothing; otherwise 201. The member must be defined first, with the same label.",
  tags: ['members'],
  auth: { scope: 'records:write' },
  invalidInput: 'IMPORT_FAILED',
  maxBodyBytes: 32 * 1024 * 1024,
  request: {
    params: MemberDidParams,
    body: Type.Object(
      {
        bundle: MemberBundleSchema,
        trust_discount: Type.Number({ minimum: 0, maximum: 1, default: DEFAULT_DISCOUNT }),
        merge: Type.Boolean({ default: false }),
        dry_run: Type.Boolean({ default: false }),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    201: { description: 'Imported.', schema: ImportResultSchema },
    200: { description: 'Dry run: what would be imported; nothing written.', schema: ImportResultSchema },
  },
  errors: ['IMPORT_FAILED', 'ACTOR_UNKNOWN', 'FORBIDDEN', 'ACTOR_RETIRED'],
  inject: { bundles: BundleServiceToken },
  handler: async ({ params, body, caller }, { bundles }) => {
    const result = await bundles.import(caller, params.did, body);
    return Reply.json(result.dry_run ? 200 : 201, result);
  },
});
