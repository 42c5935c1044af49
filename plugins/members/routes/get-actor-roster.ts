import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { actingDid } from '../../../core/access/caller.js';
import { threadVisibility } from '../../../core/access/restriction.js';
import { TH_ACTOR_REGISTRY } from '../../../core/records/reserved-threads.js';
import { MemberServiceToken } from '../member-service.js';
import { MemberTrustToken } from '../member-trust.js';

const DEFAULT_LIMIT = 100;

const RosterEntrySchema = Type.Object(
  {
    object: Type.Literal('roster_entry'),
    did: Type.String(),
    label: Type.String(),
    display_name: Type.String(),
    definition: Type.String({ description: 'The definition record in force.' }),
    version: Type.Integer(),
    adapter_kind: Type.String({ description: 'The mechanism: llm, human or script.' }),
    enabled: Type.Boolean(),
    retired: Type.Boolean(),
    model: Type.Union([Type.String(), Type.Null()]),
    tools: Type.Array(Type.String()),
    prompt: Type.Union([Type.String(), Type.Null()], { description: 'The prompt reference (record:<id>).' }),
    proposer: Type.String({ description: 'Who defined it.' }),
    trust_domain: Type.Union([Type.String(), Type.Null()]),
    trust: Type.Record(Type.String(), Type.Object({ score: Type.Number(), total: Type.Number() }), { description: 'Standing per domain (empty without the trust plugin).' }),
  },
  { $id: 'RosterEntry' },
);

export const getActorRoster = defineRoute({
  operationId: 'getActorRoster',
  method: 'GET',
  path: '/v1/actors/roster',
  summary: 'The member actors defined here',
  description:
    'Every member with its definition in force, in DID order, a page at a time (`after` the last DID of the previous page). A caller with a read restriction (grains) sees only the members it defined.',
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: {
    query: Type.Object(
      {
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: `Members per page (default ${DEFAULT_LIMIT}).` })),
        after: Type.Optional(Type.String({ maxLength: 512 })),
        include_retired: Type.Optional(Type.Boolean({ description: 'false leaves retired members out (default true).' })),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    200: {
      description: 'A page of the roster; `count` is every member the caller may see.',
      schema: Type.Object(
        { object: Type.Literal('actor_roster'), count: Type.Integer(), has_more: Type.Boolean(), next_after: Type.Union([Type.String(), Type.Null()]), data: Type.Array(RosterEntrySchema) },
        { $id: 'ActorRoster' },
      ),
    },
  },
  errors: [],
  inject: { members: MemberServiceToken, reader: RecordReaderToken, trust: MemberTrustToken },
  handler: async ({ query, caller }, { members, reader, trust }) => {
    // Whoever may read the whole registry thread sees every member; a caller confined to some threads or namespaces (grains) sees its own.
    const seesAll = threadVisibility(reader.restriction(caller), TH_ACTOR_REGISTRY) === 'all';
    let entries = seesAll ? members.all() : members.ownedBy(actingDid(caller));
    if (query.include_retired === false) entries = entries.filter((entry) => !entry.current.retired);
    const start = query.after === undefined ? 0 : firstAfter(entries.map((e) => e.did), query.after);
    const page = entries.slice(start, start + (query.limit ?? DEFAULT_LIMIT));
    const data = await Promise.all(
      page.map(async (entry) => {
        const body = entry.current;
        return {
          object: 'roster_entry' as const,
          did: entry.did,
          label: body.label,
          display_name: body.display_name,
          definition: entry.currentId,
          version: body.version,
          adapter_kind: body.mechanism,
          enabled: body.enabled,
          retired: body.retired,
          model: body.work_loop.model,
          tools: [...body.work_loop.tools],
          prompt: body.work_loop.system_prompt_ref,
          proposer: body.owner,
          trust_domain: body.trust_domain,
          trust: await trust.byDomain(caller, entry.did),
        };
      }),
    );
    const hasMore = start + page.length < entries.length;
    return { object: 'actor_roster' as const, count: entries.length, has_more: hasMore, next_after: hasMore ? page[page.length - 1]!.did : null, data };
  },
});

/** Index of the first DID after `after` in a sorted list (binary search). */
function firstAfter(dids: readonly string[], after: string): number {
  let low = 0;
  let high = dids.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (dids[mid]! <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
