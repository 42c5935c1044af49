import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import type { DocType } from '../find-index.js';
import { FIND_LIMIT_DEFAULT, FIND_LIMIT_MAX } from '../find-service.js';
import { FindServiceToken } from '../search-token.js';
import { FindResult } from './schemas.js';

const TYPES: Record<string, DocType> = { material: 'material', materials: 'material', thread: 'thread', threads: 'thread' };

export const find = defineRoute({
  operationId: 'find',
  method: 'GET',
  path: '/v1/find',
  summary: 'Blended full-text find over files and conversations',
  description:
    'BM25-ranked hits over file names, text file contents (data plane) and conversation records, in one ranking; one hit per thread (its best record); only what the caller may read. ' +
    '`types`: material, thread, or both comma-separated (default both). `prefix=true`: the last word also matches as a prefix. `explain=true`: each hit says how it scored. ' +
    '`limit` defaults to 20 and is clamped to 1..100. Needs no embedding provider.',
  tags: ['search'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        q: Type.String({ maxLength: 1_000 }),
        limit: Type.Optional(Type.Integer({ description: 'Clamped to 1..100.' })),
        types: Type.Optional(Type.String({ maxLength: 64 })),
        explain: Type.Optional(Type.Boolean()),
        prefix: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'Ranked hits.', schema: FindResult } },
  errors: ['EMPTY_QUERY', 'INVALID_SHAPE'],
  inject: { finder: FindServiceToken },
  handler: async ({ query, caller }, { finder }) => {
    if (query.q.trim() === '') throw new LoomError('EMPTY_QUERY', 'q is empty: give the words to find');
    const types = new Set<DocType>();
    for (const name of (query.types ?? 'material,thread').split(',').map((t) => t.trim()).filter(Boolean)) {
      const type = TYPES[name];
      if (!type) throw new LoomError('INVALID_SHAPE', `types ${JSON.stringify(name)} is not one of material, thread`);
      types.add(type);
    }
    if (types.size === 0) throw new LoomError('INVALID_SHAPE', 'types names none of material, thread');
    const limit = Math.min(FIND_LIMIT_MAX, Math.max(1, query.limit ?? FIND_LIMIT_DEFAULT));
    const answer = await finder.find(caller, { q: query.q, limit, types, prefix: query.prefix === true, explain: query.explain === true });
    return { object: 'list' as const, q: query.q, data: answer.hits, planes_served: answer.planes_served, planes_degraded: answer.planes_degraded };
  },
});
