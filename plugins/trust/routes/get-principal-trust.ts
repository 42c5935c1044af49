import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { conditionalReply, NOT_MODIFIED } from '../../../core/plugin/conditional-reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { TrustServiceToken, WHOLE_REACH } from '../trust-service.js';
import { PrincipalTrustAnswerSchema } from './trust-schemas.js';

export const getPrincipalTrust = defineRoute({
  operationId: 'getPrincipalTrust',
  method: 'GET',
  path: '/v1/folds/principal_trust',
  summary: 'Trust per person, unified across that person’s DIDs',
  description:
    'One row per (principal, domain): the evidence of every DID resolving to the principal (through its grants) merged, all judges together, best score first. ' +
    'root=⊤ (or no root) is this instance’s whole reach, the only one before federation. cache_key is served as the ETag; If-None-Match answers 304.',
  tags: ['trust'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object({ root: Type.Optional(Type.String({ maxLength: 512, description: '⊤ (U+22A4): the whole reach.' })) }, { additionalProperties: false }),
  },
  responses: { 200: { description: 'The fold answer; its ETag is the cache_key.', schema: PrincipalTrustAnswerSchema }, 304: NOT_MODIFIED },
  errors: ['INVALID_SHAPE'],
  inject: { trust: TrustServiceToken },
  handler: async ({ query, caller, headers }, { trust }) => {
    if (query.root !== undefined && query.root !== WHOLE_REACH) {
      throw new LoomError('INVALID_SHAPE', `root must be ${WHOLE_REACH} (U+22A4, this instance's whole reach) or omitted, got ${JSON.stringify(query.root)}: without federation no other root exists`);
    }
    const answer = await trust.principalTrust(caller);
    return conditionalReply(headers, answer.cache_key, answer);
  },
});
