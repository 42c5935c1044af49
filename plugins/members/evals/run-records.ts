/**
 * The records of a run (spec §2.6, §3, §6): the vocabulary the work loop
 * writes and scoring reads. Defined here, before the work loop exists, so
 * both sides agree on one shape; the work-loop issue adopts it (see
 * /work/notes/evals.md, "Run records").
 *
 * A run is its own thread: the thread id is the run id (spec §4.8, no
 * separate loop id). On it, in order:
 *
 *   core.work.run.v1          the opening record: what was run, under which
 *                             definition, with which tools and ceilings
 *   core.work.turn.v1         one per model turn, with `resolution_path`
 *   core.work.tool_call.v1    one per tool call the model asked for
 *   core.work.tool_result.v1  its answer (`call_id`, ok or error, `duration_ms`),
 *                             parents = [the tool_call record]
 *   (records of the member's declared kinds, its deliverables)
 *   core.work.loop_outcome.v1 the end: outcome, turns, spent_usd
 *
 * Every one of them is written AS the member (record.actor = the member
 * DID). Records on the thread by anyone else (a person steering, a
 * `core.work.loop_cancel.v1` DO by whoever cancelled) are not the run's own
 * account and scoring ignores them, so no one can add a tool call to
 * someone else's run. The run's start and end times are the receipt times
 * of its first and last records.
 */
import type { JsonObject } from '../../../core/records/json.js';

export const KIND_RUN = 'core.work.run.v1';
export const KIND_TURN = 'core.work.turn.v1';
export const KIND_TOOL_CALL = 'core.work.tool_call.v1';
export const KIND_TOOL_RESULT = 'core.work.tool_result.v1';
export const KIND_LOOP_OUTCOME = 'core.work.loop_outcome.v1';
/** A DO by whoever cancels (spec §6); the loop then ends with outcome `cancelled`. Not the member's own record. */
export const KIND_LOOP_CANCEL = 'core.work.loop_cancel.v1';

/**
 * A decision a run raises (spec §2.7, §6): a KNOW by the member on its run
 * thread, `awaits: actor_decision`, pending until a
 * `core.work.decision_answer.v1` DO whose body `fulfills` (answered) or
 * `cancels` (withdrawn, the run cancelled) it. While one is pending the run
 * is `waiting_on_you`.
 */
export const KIND_DECISION_REQUEST = 'core.work.decision_request.v1';
export const KIND_DECISION_ANSWER = 'core.work.decision_answer.v1';

/** The run's own bookkeeping kinds: not deliverables. */
export const RUN_KINDS: ReadonlySet<string> = new Set([KIND_RUN, KIND_TURN, KIND_TOOL_CALL, KIND_TOOL_RESULT, KIND_LOOP_OUTCOME, KIND_LOOP_CANCEL, KIND_DECISION_REQUEST, KIND_DECISION_ANSWER]);

/**
 * `core.work.run.v1`, the opening record (names as in the spec's run row,
 * §2.6). Written by the work loop at start, after the tier clamped the
 * ceilings, so `max_turns` and `ceiling_usd` are the ones the run runs under.
 */
export interface RunBody {
  kind: typeof KIND_RUN;
  schema_version: '1.0.0';
  /** The definition record id the run is under (a version of the member on th_actor_registry). */
  definition: string;
  /** The resolved prompt record id, or null. */
  prompt: string | null;
  /** The record of the opening words the kernel gave the run, or null. */
  frame: string | null;
  goal: string;
  /** Labels of the goal (e.g. `review`, `triage`): eval cases may select runs by one. */
  tags: string[];
  source_thread: string | null;
  domain: string | null;
  model: string | null;
  /** Tools granted to this run (the definition's, narrowed). */
  tools: string[];
  /** Granted tools the transport withheld. */
  narrowed: string[];
  transport: 'in_process' | 'sandboxed' | null;
  /** Turn ceiling of this run (the definition's `max_turns`, clamped by tier and request). */
  max_turns: number | null;
  /** Cost ceiling of this run in USD (the definition's `budget_usd`, clamped by tier and request). */
  ceiling_usd: number | null;
  /** The kinds the member declares it writes (the definition's `declares_kinds`), copied at start. */
  declares_kinds: string[];
}

/** `core.work.turn.v1`: one model turn. */
export interface TurnBody {
  kind: typeof KIND_TURN;
  /** 1-based. */
  turn: number;
  /**
   * How the turn's answer was obtained (spec §2.6: every turn carries it):
   * `provider:<provider>/<model>` when a model answered, `resumed` when it
   * was read back from the thread after a restart, `guardrail` when the
   * kernel answered in the model's place.
   */
  resolution_path: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** Why the model stopped: `tool_use` (calls follow), `end_turn` (the run completes), `max_tokens`. */
  stop_reason: string | null;
}

/** `core.work.tool_call.v1`: a call the model asked for, written before the tool runs. */
export interface ToolCallBody {
  kind: typeof KIND_TOOL_CALL;
  /** The provider's tool-use id; unique within the run. */
  call_id: string;
  /** The tool's registry name (ToolRegistry). */
  tool: string;
  /** The arguments, as the model gave them: checked against the tool's inputSchema. */
  input: JsonObject;
  turn: number;
}

/** `core.work.tool_result.v1`: the answer to one call (parents = [the call record]). */
export interface ToolResultBody {
  kind: typeof KIND_TOOL_RESULT;
  call_id: string;
  ok: boolean;
  /** The tool's output when ok (text or JSON), else null. */
  output: unknown;
  /** Why it failed (`{code, message}`), or null when ok. A denial is a failed result, its reason verbatim. */
  error: { code: string; message: string } | null;
  /** Wall time of the call (spec §2.6: every tool result carries it). */
  duration_ms: number;
}

/**
 * How a loop ends (research §3.6: ceilings end runs with a recorded outcome,
 * never an exception). `awaiting_actor` is no outcome: a run waiting on a
 * decision has written a decision request, not an end.
 */
export const OUTCOMES = ['completed', 'failed', 'cancelled', 'blocked', 'max_turns', 'budget_exhausted', 'guardrail_halt'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** `core.work.loop_outcome.v1`: the run's last own record. */
export interface LoopOutcomeBody {
  kind: typeof KIND_LOOP_OUTCOME;
  outcome: Outcome;
  /** True exactly when outcome is `completed`. */
  success: boolean;
  turns: number;
  spent_usd: number;
  /** With `budget_exhausted`: `tokens`, `cost`, `wall_clock` or `daily_cost`; else null. */
  budget_kind: string | null;
  /** Closing words (the run row's `summary`), or null. */
  summary: string | null;
}

/** The run row's `state` (spec §3) once an outcome is written; `running` / `waiting_on_you` before. */
export function runStateOf(outcome: Outcome): 'done' | 'stopped' | 'stopped_short' {
  switch (outcome) {
    case 'completed':
      return 'done';
    case 'max_turns':
    case 'budget_exhausted':
      // Ran out of turns or budget before completing (prior art: "stopped_short").
      return 'stopped_short';
    default:
      // Halted: cancelled by someone, failed, blocked or stopped by the guardrail.
      return 'stopped';
  }
}
