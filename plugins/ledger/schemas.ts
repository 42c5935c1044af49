/** Response and request schemas of the ledger plugin's routes. */
import { Type } from 'typebox';
import { RecordSchema, cursorList } from '../../core/plugin/shared-schemas.js';

export const ThreadId = Type.String({ minLength: 4, maxLength: 80, description: 'th_ + 64 hex, or a reserved thread id.' });
export const Cursor = Type.String({ pattern: '^[0-9]{1,16}$', description: 'Opaque cursor from next_cursor.' });
export const PageLimit = Type.Integer({ minimum: 1, maximum: 1000, default: 100 });

/** Each record's log sequence, in the order of `data`: what fold watermarks, cursors and `until` count in. */
export const RecordSequences = Type.Array(Type.Integer({ minimum: 1 }), { description: "Each record's log sequence, in the order of data (fold watermarks, cursors and until are sequences)." });

export const RecordList = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(RecordSchema),
    sequences: RecordSequences,
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` to get the next page; null at the end.' }),
  },
  { $id: 'RecordList' },
);

export const ThreadStatusSchema = Type.Union([Type.Literal('none'), Type.Literal('open'), Type.Literal('closed')], {
  description: 'none: no INTEND yet; open: opened by an INTEND (or reopened by cancelling what closed it); closed: fulfilled, cancelled or rejected.',
});

export const ThreadStateSchema = Type.Object(
  {
    thread: Type.String(),
    record_count: Type.Integer(),
    last_clock: Type.Union([Type.Integer(), Type.Null()]),
    actor_clocks: Type.Record(Type.String(), Type.Integer(), { description: 'Highest clock per actor; an actor writes next with this + 1.' }),
    participants: Type.Array(Type.String()),
    status: ThreadStatusSchema,
    opened_by: Type.Union([Type.String(), Type.Null()]),
    first_goal: Type.Union([Type.String(), Type.Null()], { description: 'body.goal of the first INTEND, as corrected by its author.' }),
    goal_corrected_by: Type.Union([Type.String(), Type.Null()], { description: 'The correction in force on the first goal, if any.' }),
    closed_by: Type.Union([
      Type.Object({ record: Type.String(), actor: Type.String(), reason: Type.Union([Type.Literal('fulfilled'), Type.Literal('cancelled'), Type.Literal('rejected')]) }),
      Type.Null(),
    ]),
    first_sequence: Type.Union([Type.Integer(), Type.Null()]),
    last_sequence: Type.Union([Type.Integer(), Type.Null()]),
    archived: Type.Boolean({ description: 'Archived by DELETE /v1/threads/{id}: hidden from GET /v1/threads unless include_archived; its records stay.' }),
  },
  { $id: 'ThreadState' },
);

export const ThreadSummarySchema = Type.Object(
  {
    object: Type.Literal('thread'),
    thread: Type.String(),
    record_count: Type.Integer(),
    last_clock: Type.Union([Type.Integer(), Type.Null()]),
    participants: Type.Array(Type.String()),
    status: ThreadStatusSchema,
    first_goal: Type.Union([Type.String(), Type.Null()]),
    first_sequence: Type.Integer(),
    last_sequence: Type.Integer(),
    archived: Type.Boolean(),
  },
  { $id: 'ThreadSummary' },
);

export const ThreadList = cursorList(ThreadSummarySchema, 'ThreadList');

export const ParticipantSchema = Type.Object(
  {
    object: Type.Literal('participant'),
    actor: Type.String(),
    record_count: Type.Integer(),
    highest_clock: Type.Integer(),
    next_clock: Type.Integer(),
    first_sequence: Type.Integer(),
    last_sequence: Type.Integer(),
    acts: Type.Record(Type.String(), Type.Integer(), { description: 'Records written on the thread, by act.' }),
    roles: Type.Array(Type.String(), {
      description: 'Inferred: opener (first INTEND), worker (claimed an INTEND done), reviewer (wrote a verdict), adapter (dispatch_handled records), observer (none of these).',
    }),
  },
  { $id: 'Participant' },
);

export const QueryPlanSchema = Type.Object(
  {
    sql: Type.String(),
    bind_count: Type.Integer(),
    indexed_fields: Type.Array(Type.String()),
    unindexed_fields: Type.Array(Type.String()),
    database_plan: Type.Optional(Type.Array(Type.String(), { description: "The database's own plan of that statement (PostgreSQL's EXPLAIN), one line per entry, where the driver has one." })),
  },
  { $id: 'QueryPlan' },
);

export const RecordQueryBody = Type.Object(
  {
    thread: Type.Optional(Type.String({ description: 'Shorthand for a thread equality in the filter; uses the thread index.' })),
    filter: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Field paths and $and/$or/$not; see docs/query.md.' })),
    sort: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal(1), Type.Literal(-1)]))),
    limit: Type.Optional(Type.Integer({ minimum: 0, default: 100, description: 'Clamped to 1000.' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    explain: Type.Optional(Type.Boolean({ default: false })),
  },
  { $id: 'RecordQuery' },
);

export const RecordQueryResult = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(RecordSchema),
    sequences: RecordSequences,
    capped: Type.Boolean({ description: 'More matching rows exist beyond this page.' }),
    matched_total: Type.Integer(),
    plan: Type.Optional(QueryPlanSchema),
  },
  { $id: 'RecordQueryResult' },
);
