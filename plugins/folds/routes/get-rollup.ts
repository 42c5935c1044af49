import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { ROLLUP_FOLD } from '../named/rollup.js';
import { conditionalReply, NOT_MODIFIED } from '../../../core/plugin/conditional-reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { FoldAnswerSchema } from '../../../core/plugin/shared-schemas.js';

/** The only root before federation: everything this instance reaches. */
export const WHOLE_REACH = '⊤';

export const getRollup = defineRoute({
  operationId: 'getRollup',
  method: 'GET',
  path: '/v1/folds/rollup',
  summary: 'A digest of everything reachable',
  description:
    'The rollup fold over every coordination record the caller may see: counts of records, threads, actors, records by act and tasks by state, ' +
    'corrections and cancellations, the busiest threads, the most active actors and recent activity. root=⊤ (or no root) is this instance’s ' +
    'whole reach, the only root before federation. cache_key is served as the ETag; If-None-Match answers 304.',
  tags: ['folds'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object({ root: Type.Optional(Type.String({ maxLength: 512, description: '⊤ (U+22A4): the whole reach.' })) }, { additionalProperties: false }),
  },
  responses: { 200: { description: 'The rollup fold answer.', schema: FoldAnswerSchema }, 304: NOT_MODIFIED },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken },
  handler: async ({ query, caller, headers }, { reader }) => {
    if (query.root !== undefined && query.root !== WHOLE_REACH) {
      throw new LoomError('INVALID_SHAPE', `root must be ${WHOLE_REACH} (U+22A4, this instance's whole reach) or omitted, got ${JSON.stringify(query.root)}: without federation no other root exists`);
    }
    // The shared value when the caller sees all the fold reads, else the fold over just what it may see.
    const answer = await reader.globalFold(caller, ROLLUP_FOLD);
    return conditionalReply(headers, answer.cache_key, answer);
  },
});
