/**
 * Hand-built run logs in the run-record vocabulary
 * (plugins/members/evals/run-records.ts), for the scorer's unit tests and
 * the HTTP tests that write them with POST /v1/records. `passingRun` passes
 * every structure check; each test changes one thing.
 */
import type { Act } from '../../core/records/acts.js';
import type { JsonObject } from '../../core/records/json.js';
import { makeRecord, type LoomRecord } from '../../core/records/record.js';
import { TOOL_READ, TOOL_WRITE } from './member-tools-plugin.js';
import { KIND_LOOP_OUTCOME, KIND_RUN, KIND_TOOL_CALL, KIND_TOOL_RESULT, KIND_TURN } from '../../plugins/members/evals/run-records.js';

/** One record of a run; `actor` defaults to the member. */
export interface RunStep {
  readonly act: Act;
  readonly body: JsonObject;
  readonly actor?: string;
}

export const DELIVERABLE = 'acme.review.v1';

export const step = {
  open: (fields: { definition: string; goal?: string; tags?: string[]; tools?: string[]; max_turns?: number | null; ceiling_usd?: number | null; declares_kinds?: string[] }): RunStep => ({
    act: 'DO',
    body: {
      kind: KIND_RUN,
      schema_version: '1.0.0',
      definition: fields.definition,
      prompt: null,
      frame: null,
      goal: fields.goal ?? 'review the change',
      tags: fields.tags ?? [],
      source_thread: null,
      domain: 'code',
      model: 'claude-sonnet-4-6',
      tools: fields.tools ?? [],
      narrowed: [],
      transport: 'in_process',
      max_turns: fields.max_turns === undefined ? 5 : fields.max_turns,
      ceiling_usd: fields.ceiling_usd === undefined ? 1 : fields.ceiling_usd,
      declares_kinds: fields.declares_kinds ?? [DELIVERABLE],
    },
  }),
  turn: (turn: number, cost_usd = 0.01): RunStep => ({
    act: 'DO',
    body: { kind: KIND_TURN, turn, resolution_path: 'provider:anthropic/claude-sonnet-4-6', input_tokens: 100, output_tokens: 50, cost_usd, stop_reason: 'tool_use' },
  }),
  call: (call_id: string, tool: string, input: JsonObject, turn = 1): RunStep => ({ act: 'CALL', body: { kind: KIND_TOOL_CALL, call_id, tool, input, turn } }),
  result: (call_id: string, ok = true): RunStep => ({
    act: 'KNOW',
    body: { kind: KIND_TOOL_RESULT, call_id, ok, output: ok ? 'done' : null, error: ok ? null : { code: 'TOOL_FAILED', message: 'it broke' }, duration_ms: 12 },
  }),
  write: (kind = DELIVERABLE): RunStep => ({ act: 'KNOW', body: { kind, text: 'looks good' } }),
  outcome: (outcome = 'completed', turns = 2, spent_usd = 0.02): RunStep => ({
    act: 'KNOW',
    body: { kind: KIND_LOOP_OUTCOME, outcome, success: outcome === 'completed', turns, spent_usd, budget_kind: null, summary: null },
  }),
};

/** A run passing every structure check of a case expecting TOOL_READ then TOOL_WRITE. */
export function passingRun(definition: string, tags: string[] = []): RunStep[] {
  return [
    step.open({ definition, tags, tools: [TOOL_READ, TOOL_WRITE] }),
    step.turn(1),
    step.call('c1', TOOL_READ, { thread: 'th_x' }),
    step.result('c1'),
    step.call('c2', TOOL_WRITE, { thread: 'th_x' }),
    step.result('c2'),
    step.turn(2),
    step.write(),
    step.outcome(),
  ];
}

/** The steps as stored records of `member` on `thread` (ids made up, one per position). */
export function asRecords(member: string, thread: string, steps: readonly RunStep[]): LoomRecord[] {
  const clocks = new Map<string, number>();
  return steps.map((s, i) => {
    const actor = s.actor ?? member;
    const clock = clocks.get(actor) ?? 0;
    clocks.set(actor, clock + 1);
    return makeRecord(`${thread.slice(3, 55)}${String(i).padStart(12, '0')}`, { parents: [], thread, actor, act: s.act, body: s.body, clock, data_type: 'SCALAR', judged_by: null });
  });
}
