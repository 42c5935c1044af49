/** Wire shapes of the actor directory (spec §2.3: list item fields are ours to choose; docs/decisions.md). */
import { Type } from 'typebox';

const SeenAt = Type.Object({ sequence: Type.Integer(), at: Type.String({ description: 'Receipt time, ISO 8601.' }) });

const actorFields = {
  object: Type.Literal('actor'),
  did: Type.String(),
  kind: Type.String({ description: 'user, agent or system for did:sync DIDs; otherwise the DID method (key, web).' }),
  first_seen: SeenAt,
  last_seen: SeenAt,
  record_count: Type.Integer(),
  thread_count: Type.Integer(),
};

export const ActorSummarySchema = Type.Object(actorFields, { $id: 'ActorSummary' });

export const ActorListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    watermark: Type.Integer(),
    data: Type.Array(ActorSummarySchema),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'The last DID of this page: pass as after.' }),
  },
  { $id: 'ActorList' },
);

export const ActorDetailSchema = Type.Object(
  {
    ...actorFields,
    watermark: Type.Integer(),
    by_act: Type.Record(Type.String(), Type.Integer(), { description: 'Records written, by act.' }),
    assigned_tasks: Type.Integer({ description: 'INTENDs naming it in assigned_to.' }),
    domains: Type.Record(Type.String(), Type.Integer(), { description: 'Task domains it opened or was assigned, with counts.' }),
    threads: Type.Array(Type.Object({ thread: Type.String(), record_count: Type.Integer(), last_sequence: Type.Integer() }), {
      description: 'Threads it wrote on, most recent first (at most 100; thread_count has the total).',
    }),
    trust: Type.Record(Type.String(), Type.Object({ score: Type.Number(), total: Type.Integer() }), {
      description: 'Trust by domain (Wilson lower bound, all judges together); {} when none or when the trust plugin is not loaded.',
    }),
  },
  { $id: 'ActorDetail' },
);
