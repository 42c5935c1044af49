/** Wire shapes of the run doors (routes/). */
import { Type } from 'typebox';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from './run-service.js';
import { RunRowSchema, RunStateSchema } from './run-row.js';

export const RunThreadParams = Type.Object({ thread: Type.String({ minLength: 1, maxLength: 512, description: 'The run thread (the run id).' }) }, { additionalProperties: false });
export const ActorDidParams = Type.Object({ did: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });

export const RunListQuery = Type.Object(
  {
    state: Type.Optional(Type.Union(RunStateSchema.anyOf, { description: 'Only runs in this state.' })),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only runs of this member.' })),
    since: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'ISO 8601 time: only runs started at or after it.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX, description: `Rows at most (default ${LIST_LIMIT_DEFAULT}).` })),
  },
  { additionalProperties: false },
);

export const RunPageSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(RunRowSchema),
    scan_ceiling: Type.Integer({ description: 'Runs read at most per answer, newest first.' }),
    capped: Type.Boolean({ description: 'The scan stopped at the ceiling with older runs unread and fewer rows than `limit`: matches may be missing.' }),
  },
  { $id: 'RunPage' },
);

export const ActorRunListSchema = Type.Object(
  {
    object: Type.Literal('run_list'),
    actor: Type.String(),
    count: Type.Integer(),
    truncated: Type.Boolean({ description: 'More runs than the scan ceiling: only the newest were read.' }),
    data: Type.Array(RunRowSchema),
  },
  { $id: 'ActorRunList' },
);

const MaybeRecord = Type.Union([RecordSchema, Type.Null()]);
export const RunProvenanceSchema = Type.Object(
  {
    object: Type.Literal('run_provenance'),
    thread: Type.String(),
    definition: MaybeRecord,
    prompt: MaybeRecord,
    frame: MaybeRecord,
  },
  { $id: 'RunProvenance' },
);

export const ActorUsageSchema = Type.Object(
  {
    object: Type.Literal('actor_usage'),
    actor: Type.String(),
    window_kind: Type.Literal('daily'),
    day: Type.String({ description: 'The UTC day counted, YYYY-MM-DD.' }),
    loop_count: Type.Integer(),
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    cost_usd: Type.Number(),
  },
  { $id: 'ActorUsage' },
);
