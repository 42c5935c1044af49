import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { didSyntaxError } from '../../../core/records/did-syntax.js';
import { ACTOR_DIRECTORY_FOLD, orderedActs, summarise, type ActorDirectoryState } from '../actor-directory-fold.js';
import { ActorDetailSchema } from '../schemas.js';
import { TrustLookupToken } from '../trust-lookup.js';

const THREADS_SHOWN = 100;

export const lookupActor = defineRoute({
  operationId: 'lookupActor',
  method: 'GET',
  path: '/v1/actors/lookup',
  summary: 'One actor in detail',
  description: 'First and last seen, records by act, threads, task domains and trust by domain, over the records the caller may see.',
  tags: ['actors'],
  auth: { scope: 'records:read' },
  request: { query: Type.Object({ did: Type.String({ maxLength: 512 }) }, { additionalProperties: false }) },
  responses: { 200: { description: 'The actor.', schema: ActorDetailSchema } },
  errors: ['INVALID_SHAPE', 'ACTOR_UNKNOWN'],
  inject: { reader: RecordReaderToken, trust: TrustLookupToken },
  handler: async ({ query, caller }, { reader, trust }) => {
    const problem = didSyntaxError(query.did);
    if (problem) throw new LoomError('INVALID_SHAPE', `did: ${problem}`);
    const { state, watermark } = await reader.globalFoldState<ActorDirectoryState>(caller, ACTOR_DIRECTORY_FOLD);
    const entry = state.actors.get(query.did);
    if (!entry) throw new LoomError('ACTOR_UNKNOWN', `no records by or assigned to ${query.did} that this credential may see`);
    const threads = [...entry.threads.entries()]
      .sort((a, b) => b[1].last_sequence - a[1].last_sequence)
      .slice(0, THREADS_SHOWN)
      .map(([thread, t]) => ({ thread, record_count: t.records, last_sequence: t.last_sequence }));
    return {
      ...summarise(entry),
      watermark,
      by_act: orderedActs(entry.by_act),
      assigned_tasks: entry.assigned,
      domains: Object.fromEntries([...entry.domains.entries()].sort((a, b) => b[1] - a[1])),
      threads,
      trust: await trust.byDomain(caller, entry.did),
    };
  },
});
