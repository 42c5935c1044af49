/** Request and answer shapes of the work doors (spec §4.8, §4.15). */
import { Type } from 'typebox';
import { RunRowSchema, WorkLoopSchema } from '../members/index.js';
import { decideFields, DecisionOutcomeSchema } from './decisions/schemas.js';

const Goal = Type.String({ minLength: 1, maxLength: 20_000, description: 'What the run is to achieve, in words the model reads.' });
const ThreadIdText = Type.String({ minLength: 1, maxLength: 100 });

export const MemberRunBody = Type.Object(
  {
    goal: Goal,
    source_thread: Type.Optional(ThreadIdText),
    repo: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    consumes: Type.Optional(Type.Array(ThreadIdText, { maxItems: 100 })),
    promises: Type.Optional(Type.Array(ThreadIdText, { maxItems: 100 })),
    contract: Type.Optional(Type.String({ maxLength: 10_000 })),
    verdict: Type.Optional(Type.String({ maxLength: 10_000 })),
    revert: Type.Optional(Type.String({ maxLength: 10_000 })),
    budget_usd: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
    max_turns: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    verification: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('self'), Type.Literal('peer'), Type.Literal('person')])),
    model_override: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    definition: Type.Optional(WorkLoopSchema),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 })),
  },
  { additionalProperties: false },
);

export const WorkLoopBody = Type.Object(
  {
    goal: Goal,
    max_turns: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
    token_budget: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000 })),
    wall_clock_secs: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800 })),
    workspace: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The namespace the loop’s thread is in.' })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A catalog model; default the first whose provider is configured.' })),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, description: 'Tools from tool_grant.requestable; default tool_grant.default.' })),
  },
  { additionalProperties: false },
);

const Nullable = <T extends ReturnType<typeof Type.Number>>(schema: T) => Type.Union([schema, Type.Null()]);

export const EffectiveConfigSchema = Type.Object({
  max_turns: Nullable(Type.Number()),
  token_budget: Nullable(Type.Number()),
  wall_clock_secs: Nullable(Type.Number()),
  forbidden_tools: Type.Array(Type.String()),
});

export const WorkLoopStartedSchema = Type.Object({
  object: Type.Literal('work_loop'),
  status: Type.Literal('started'),
  thread: Type.String(),
  tier: Type.String(),
  model: Type.String(),
  tools: Type.Array(Type.String()),
  effective_config: EffectiveConfigSchema,
  watch: Type.String({ description: 'The SSE URL of the loop’s records.' }),
});

export const UsageTodaySchema = Type.Object({ loop_count: Type.Number(), cost_usd: Type.Number() });

export const WorkLoopPreviewSchema = Type.Object({
  object: Type.Literal('work_loop_preview'),
  tier: Type.String(),
  caps: Type.Object({
    max_turns: Nullable(Type.Number()),
    wall_clock_secs: Nullable(Type.Number()),
    token_budget: Nullable(Type.Number()),
    daily_cost_cap_usd: Nullable(Type.Number()),
    daily_loop_cap: Nullable(Type.Number()),
  }),
  effective_config: EffectiveConfigSchema,
  usage_today: UsageTodaySchema,
  model: Type.Union([Type.String(), Type.Null()]),
  estimated_cost_usd: Nullable(Type.Number()),
  tool_grant: Type.Object({ default: Type.Array(Type.String()), requestable: Type.Array(Type.String()) }),
  would_be_denied: Type.Boolean(),
  denial_reason: Type.Union([Type.Literal('WORK_DAILY_CAP_EXCEEDED'), Type.Literal('WORK_DAILY_COUNT_EXCEEDED'), Type.Null()]),
});

export const WorkLoopStatusSchema = Type.Object({
  object: Type.Literal('work_loop_status'),
  thread: Type.String(),
  state: Type.String(),
  outcome: Type.Union([Type.String(), Type.Null()]),
  driven_here: Type.Boolean({ description: 'Whether this server is driving the run now (false on a follower of a shared log, or once ended).' }),
  watch: Type.String(),
  run: RunRowSchema,
});

export const CancelBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2_000 })) }, { additionalProperties: false });

export const WorkLoopCancelSchema = Type.Object({
  object: Type.Literal('work_loop_cancel'),
  thread: Type.String(),
  cancel: Type.Union([Type.String(), Type.Null()], { description: 'The core.work.loop_cancel.v1 record; null when the run had already ended (nothing written).' }),
  state: Type.String(),
});

export const RunEventBody = Type.Union([
  Type.Object({ type: Type.Literal('message'), text: Type.String({ minLength: 1, maxLength: 20_000 }) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('stop'), reason: Type.Optional(Type.String({ maxLength: 2_000 })) }, { additionalProperties: false }),
  // Answers the run's open decision, as POST /v1/decisions/{id}/decide does.
  Type.Object({ type: Type.Literal('decision'), ...decideFields }, { additionalProperties: false }),
]);

export const RunEventSchema = Type.Object({
  object: Type.Literal('run_event'),
  type: Type.Union([Type.Literal('message'), Type.Literal('stop'), Type.Literal('decision')]),
  thread: Type.String(),
  record: Type.Union([Type.String(), Type.Null()]),
  state: Type.String(),
  decision: Type.Optional(DecisionOutcomeSchema),
});

export const StreamQuery = Type.Object({ after: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })) }, { additionalProperties: false });
export const EventsQuery = Type.Object(
  {
    replay: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: every record of the run from its start; else only what lands from now.' })),
    after: Type.Optional(Type.String({ pattern: '^[0-9]{1,16}$' })),
  },
  { additionalProperties: false },
);
