/**
 * The run row (spec §2.6) of one entry of the member_runs index
 * (evals/run-index-fold.ts): pure, so the row is a fold over the run's
 * records and can be recomputed offline from them. What Loom cannot derive
 * from the run-record vocabulary yet stays null: `ask` (decision requests
 * arrive with the decisions issue) and the report fields unless the outcome
 * carries them.
 *
 * Pure like the fold (it imports the record algebra, the run vocabulary and
 * TypeBox only): the SDK's verifyRun recomputes a row with it from the run
 * thread's records up to the row's `watermark`.
 */
import { Type, type Static, type TSchema } from 'typebox';
import type { JsonObject } from '../../../core/records/json.js';
import type { RunEntry } from '../evals/run-index-fold.js';
import { OUTCOMES, runStateOf, type Outcome } from '../evals/run-records.js';

export const RUN_STATES = ['running', 'waiting_on_you', 'done', 'stopped', 'stopped_short'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const RunStateSchema = Type.Union([Type.Literal('running'), Type.Literal('waiting_on_you'), Type.Literal('done'), Type.Literal('stopped'), Type.Literal('stopped_short')]);

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const RunRowSchema = Type.Object(
  {
    object: Type.Literal('run'),
    thread: Type.String({ description: 'The run thread: the run id.' }),
    run: Type.String({ description: 'The opening core.work.run.v1 record id.' }),
    actor: Type.String({ description: 'The member that ran (the writer of the opening record).' }),
    actor_name: Nullable(Type.String({ description: "The member's display name; null when the actor is not a member defined here." })),
    model: Nullable(Type.String()),
    goal: Type.String(),
    source_thread: Nullable(Type.String()),
    domain: Nullable(Type.String()),
    definition: Type.Union([Type.String(), Type.Null()], { description: 'The definition record id the run is under; null for a person’s own loop (POST /v1/work/loop).' }),
    prompt: Nullable(Type.String()),
    frame: Nullable(Type.String()),
    state: RunStateSchema,
    outcome: Nullable(Type.String({ description: 'The loop outcome once ended (completed, failed, cancelled, blocked, max_turns, budget_exhausted, guardrail_halt).' })),
    turns: Type.Integer(),
    max_turns: Type.Union([Type.Integer(), Type.Null()]),
    spent_usd: Type.Number(),
    ceiling_usd: NullableNumber,
    started_at: Nullable(Type.String({ description: 'Receipt time of the opening record.' })),
    ended_at: Nullable(Type.String({ description: 'Receipt time of the outcome record.' })),
    summary: Nullable(Type.String()),
    ask: Type.Null({ description: 'The open decision, once decision requests exist (null until then).' }),
    tools: Type.Array(Type.String()),
    narrowed: Type.Array(Type.String()),
    transport: Nullable(Type.String()),
    tool_calls_ok: Type.Integer(),
    tool_calls_failed: Type.Integer(),
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    verb: Nullable(Type.String()),
    needs: Type.Unknown({ description: "The run's report: what it needs, when its outcome says; else null." }),
    reason: Nullable(Type.String()),
    evidence: Type.Unknown(),
    candidates: Type.Unknown(),
    reported_by: Nullable(Type.String()),
    watermark: Type.Integer({
      minimum: 0,
      description: "The log sequence the row covers: recomputing the member_runs fold over the run thread's records up to it gives this row (loom runs show --verify).",
    }),
  },
  { $id: 'RunRow' },
);
export type RunRow = Static<typeof RunRowSchema>;

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const number = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
const json = (body: JsonObject | null, key: string): unknown => (body && body[key] !== undefined ? body[key] : null);

/** The run's state (spec §3): running until the member's outcome, then per `runStateOf`. */
export function stateOf(entry: Pick<RunEntry, 'outcome'>): RunState {
  if (entry.outcome === null) return 'running';
  // An outcome outside the vocabulary still ended the run: it did not complete.
  return (OUTCOMES as readonly string[]).includes(entry.outcome) ? runStateOf(entry.outcome as Outcome) : 'stopped';
}

/**
 * The row. Turns and spend are the member's own account at its outcome when
 * the outcome states them, else the tally of its turn records. `watermark`
 * is the sequence the fold had reached when `entry` was read.
 */
export function runRowOf(entry: RunEntry, actorName: string | null, watermark: number): RunRow {
  const open = entry.opening;
  const end = entry.end;
  const turns = number(json(end, 'turns'));
  const spent = number(json(end, 'spent_usd'));
  const maxTurns = number(open['max_turns']);
  return {
    object: 'run',
    thread: entry.thread,
    run: entry.id,
    actor: entry.actor,
    actor_name: actorName,
    model: text(open['model']),
    goal: text(open['goal']) ?? '',
    source_thread: text(open['source_thread']),
    domain: text(open['domain']),
    definition: entry.definition,
    prompt: text(open['prompt']),
    frame: text(open['frame']),
    state: stateOf(entry),
    outcome: entry.outcome,
    turns: turns !== null && Number.isInteger(turns) ? turns : entry.turns,
    max_turns: maxTurns !== null && Number.isInteger(maxTurns) ? maxTurns : null,
    spent_usd: spent ?? entry.turnCostUsd,
    ceiling_usd: number(open['ceiling_usd']),
    started_at: iso(entry.startedAt),
    ended_at: iso(entry.endedAt),
    summary: text(json(end, 'summary')),
    ask: null,
    tools: strings(open['tools']),
    narrowed: strings(open['narrowed']),
    transport: text(open['transport']),
    tool_calls_ok: entry.toolOk,
    tool_calls_failed: entry.toolFailed,
    input_tokens: entry.inputTokens,
    output_tokens: entry.outputTokens,
    verb: text(json(end, 'verb')),
    needs: json(end, 'needs'),
    reason: text(json(end, 'reason')),
    evidence: json(end, 'evidence'),
    candidates: json(end, 'candidates'),
    reported_by: text(json(end, 'reported_by')),
    watermark,
  };
}
