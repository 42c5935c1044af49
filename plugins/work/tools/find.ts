/**
 * `find`: the search plugin's blended text find (GET /v1/find) over file
 * names and contents and conversation records, only what the member may
 * read; registered only when the search plugin is loaded.
 */
import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { FindService } from '../../search/index.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { clampLimit } from './tool-record.js';

const LIMIT_DEFAULT = 10;
const LIMIT_MAX = 50;

type FindTypes = Parameters<FindService['find']>[1]['types'];

export function findTool(finder: FindService): ToolDescriptor {
  return defineTool({
    name: 'find',
    description:
      'Full-text search (BM25) over conversations (one hit per thread, its best record) and files (names and text contents), only what you may read. ' +
      'Answers {hits: [{type, title, snippet, thread?, record?, namespace?, path?, score}]}, best first: read a thread hit with read_thread, a file hit with read_file. ' +
      `types narrows to "thread" or "material" (files). limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
    inputSchema: Type.Object(
      {
        q: Type.String({ minLength: 1, maxLength: 1000, description: 'The words to find.' }),
        types: Type.Optional(Type.Array(Type.Union([Type.Literal('thread'), Type.Literal('material')]), { minItems: 1, maxItems: 2 })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, { caller }) {
      if (input.q.trim() === '') throw new LoomError('EMPTY_QUERY', 'q is empty: give the words to find');
      const types: FindTypes = new Set(input.types ?? ['thread', 'material']);
      const answer = await finder.find(caller, { q: input.q, limit: clampLimit(input.limit, LIMIT_DEFAULT, LIMIT_MAX), types, prefix: false, explain: false });
      return {
        hits: answer.hits.map((hit) => ({
          type: hit.type,
          title: hit.title,
          snippet: hit.snippet.text,
          ...(hit.thread === undefined ? {} : { thread: hit.thread }),
          ...(hit.record === undefined ? {} : { record: hit.record }),
          ...(hit.namespace === undefined ? {} : { namespace: hit.namespace }),
          ...(hit.path === undefined ? {} : { path: hit.path }),
          score: Math.round(hit.score * 1000) / 1000,
        })),
        ...(answer.planes_degraded.length > 0 ? { degraded: answer.planes_degraded } : {}),
      };
    },
  });
}
