/**
 * The run row (spec §2.6) of one entry of the member_runs index
 * (evals/run-index-fold.ts): pure, so the row is a fold over the run's
 * records and can be recomputed offline from them. `ask` is the open
 * decision (a pending `core.work.decision_request.v1`); the report fields
 * stay null unless the outcome carries them.
 *
 * Pure like the fold (it imports the record algebra, the run vocabulary and
 * TypeBox only): the SDK's verifyRun recomputes a row with it from the run
 * thread's records up to the row's `watermark`.
 */
import { Type, type Static, type TSchema } from 'typebox';
import type { JsonObject } from '../../../core/records/json.js';
import type { OpenAsk, RunEntry } from '../evals/run-index-fold.js';
import { OUTCOMES, runStateOf, type Outcome } from '../evals/run-records.js';

export const RUN_STATES = ['running', 'waiting_on_you', 'done', 'stopped', 'stopped_short'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const RunStateSchema = Type.Union([Type.Literal('running'), Type.Literal('waiting_on_you'), Type.Literal('done'), Type.Literal('stopped'), Type.Literal('stopped_short')]);

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const DecisionOptionSchema = Type.Object(
  {
    id: Type.String({ description: 'What a decider sends as `decision` (never what the run reads).' }),
    label: Type.String(),
    description: Type.String({ description: 'One line.' }),
    recommended: Type.Boolean(),
  },
  { $id: 'DecisionOption' },
);

/** The open decision of a run, as the run row and GET /v1/decisions show it. */
export const RunAskSchema = Type.Object(
  {
    id: Type.String({ description: 'The core.work.decision_request.v1 record id: POST /v1/decisions/{id}/decide answers it.' }),
    question: Type.String(),
    options: Type.Array(DecisionOptionSchema),
    allow_other: Type.Boolean({ description: 'Whether `other` with a provided_value is a valid answer.' }),
    multi: Type.Boolean({ description: 'Whether several options may be chosen (`decisions`).' }),
    about: Type.Union([Type.Literal('tool_call'), Type.Literal('ask'), Type.Literal('blueprint_proposal')], { description: 'tool_call: a gated call waits on approval; ask: the member asked; blueprint_proposal: the member proposes a blueprint.' }),
    proposal_kind: Nullable(Type.String({ description: '`blueprint` when the ask is a proposal; else null.' })),
    plan_hash: Nullable(Type.String({ description: 'A blueprint proposal: the hash of the plan proposed.' })),
    tool: Nullable(Type.String({ description: 'The gated tool (or ask / propose_blueprint).' })),
    call_id: Nullable(Type.String({ description: "The model's tool-call id the ask is about." })),
    input: Type.Unknown({ description: 'The gated call’s input, when it gates a call; else null.' }),
    reason: Nullable(Type.String({ description: 'Why the call needs a person (the definition, or the tier for a destructive tool).' })),
    raised_at: Nullable(Type.String({ description: 'Receipt time of the request.' })),
  },
  { $id: 'RunAsk' },
);
export type RunAsk = Static<typeof RunAskSchema>;

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
    ask: Type.Union([RunAskSchema, Type.Null()], { description: 'The open decision (state waiting_on_you), or null; names proposal_kind when the ask is a proposal.' }),
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

/** The open decision as the row shows it, from its request body. */
export function askOf(ask: OpenAsk | null): RunAsk | null {
  if (ask === null) return null;
  const body = ask.body;
  const options = Array.isArray(body['options']) ? body['options'] : [];
  const call = (body['call'] ?? null) as { call_id?: unknown; tool?: unknown; input?: unknown } | null;
  return {
    id: ask.id,
    question: text(body['question']) ?? '',
    options: options
      .filter((o): o is JsonObject => typeof o === 'object' && o !== null && !Array.isArray(o))
      .map((o) => ({ id: text(o['id']) ?? '', label: text(o['label']) ?? '', description: text(o['description']) ?? '', recommended: o['recommended'] === true })),
    allow_other: body['allow_other'] === true,
    multi: body['multi'] === true,
    about: body['about'] === 'ask' || body['about'] === 'blueprint_proposal' ? body['about'] : 'tool_call',
    proposal_kind: text(body['proposal_kind']),
    plan_hash: text(body['plan_hash']),
    tool: text(call?.tool),
    call_id: text(call?.call_id),
    input: body['about'] === 'tool_call' && call?.input !== undefined ? call.input : null,
    reason: text(body['reason']),
    raised_at: iso(ask.at),
  };
}

/** The run's state (spec §3): running (or waiting_on_you while a decision is open) until the member's outcome, then per `runStateOf`. */
export function stateOf(entry: Pick<RunEntry, 'outcome'> & { ask?: OpenAsk | null }): RunState {
  if (entry.outcome === null) return entry.ask ? 'waiting_on_you' : 'running';
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
    ask: askOf(entry.ask ?? null),
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
