/** Wire schemas of the member doors (spec §4.7, §4.15). */
import { Type } from 'typebox';

const Did = Type.String({ maxLength: 512 });
const Usd = Type.Union([Type.Number(), Type.Null()]);
const Count = Type.Union([Type.Integer(), Type.Null()]);

export const MemberRowSchema = Type.Object(
  {
    object: Type.Literal('assistant'),
    did: Did,
    label: Type.String(),
    display_name: Type.String(),
    owner: Did,
    mechanism: Type.String(),
    model: Type.Union([Type.String(), Type.Null()]),
    tools: Type.Array(Type.String()),
    approval_required: Type.Array(Type.String(), { description: 'Tools whose every call waits on a person’s decision.' }),
    prompt_record_id: Type.Union([Type.String(), Type.Null()]),
    budget_usd: Usd,
    max_turns: Count,
    daily_cost_cap_usd: Usd,
    daily_loop_cap: Count,
    default_on_new_threads: Type.Boolean(),
    enabled: Type.Boolean(),
    retired: Type.Boolean(),
    version: Type.Integer(),
    definition_record_id: Type.String(),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'MemberRow' },
);

export const PricedModelSchema = Type.Object(
  {
    id: Type.String(),
    provider: Type.String(),
    input_usd_per_mtok: Type.Number(),
    output_usd_per_mtok: Type.Number(),
    context_window: Type.Integer(),
  },
  { $id: 'PricedModel' },
);

export const MemberDidParams = Type.Object({ did: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });

export const HistoryVersionSchema = Type.Object(
  {
    definition_record_id: Type.String(),
    version: Type.Integer(),
    at: Type.String({ format: 'date-time' }),
    by: Did,
    change: Type.String({ description: 'defined, patched, reverted or retired' }),
    changed: Type.Array(Type.String(), { description: 'Among model, prompt, tools, budget_usd, max_turns, display_name; the first version says created.' }),
    display_name: Type.String(),
    model: Type.Union([Type.String(), Type.Null()]),
    prompt_record_id: Type.Union([Type.String(), Type.Null()]),
    tools: Type.Array(Type.String()),
    budget_usd: Usd,
    max_turns: Count,
    daily_cost_cap_usd: Usd,
    daily_loop_cap: Count,
    retired: Type.Boolean(),
  },
  { $id: 'MemberHistoryVersion' },
);
