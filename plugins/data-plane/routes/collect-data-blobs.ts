import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { BlobCollectorToken } from '../blob-collector.js';
import { CollectionSchema } from './data-schemas.js';

export const collectDataBlobs = defineRoute({
  operationId: 'collectDataBlobs',
  method: 'POST',
  path: '/v1/data/gc',
  summary: 'Collect unreferenced content now',
  description:
    "Runs this server's blob collector at once: content no file of any namespace holds, and no completing upload holds, is deleted once it has been unreferenced for grace_seconds " +
    '(default the configured blobGraceSeconds; 0 collects every unreferenced blob now). Live content is never touched. The collector also runs by itself every blobCollectIntervalSeconds. Admin only.',
  tags: ['data'],
  auth: { scope: 'admin' },
  request: {
    body: Type.Optional(
      Type.Object(
        { grace_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 * 86_400, description: 'Collect content unreferenced at least this long. @default blobGraceSeconds' })) },
        { additionalProperties: false },
      ),
    ),
  },
  responses: { 200: { description: 'What the run collected and what it kept.', schema: CollectionSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { collector: BlobCollectorToken },
  handler: async ({ body }, { collector }) => collector.collect(body?.grace_seconds),
});
