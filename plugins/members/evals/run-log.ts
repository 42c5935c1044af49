/**
 * A run's records read into what scoring judges (pure): the opening record,
 * turns, tool calls and results, the kinds the member wrote and the outcome.
 * Only the member's own records count (run-records.ts); malformed bodies are
 * kept as they are, so the checks fail them rather than the reader
 * dropping them (a call without a `call_id` is a call nobody answered).
 */
import type { LoomRecord } from '../../../core/records/record.js';
import { KIND_LOOP_OUTCOME, KIND_RUN, KIND_TOOL_CALL, KIND_TOOL_RESULT, KIND_TURN, RUN_KINDS } from './run-records.js';

export interface RunCall {
  readonly id: string;
  readonly callId: string | null;
  readonly tool: string | null;
  readonly input: unknown;
}

export interface RunLog {
  /** The member (the opening record's actor). */
  readonly member: string;
  readonly thread: string;
  /** The opening `core.work.run.v1` record id. */
  readonly runId: string;
  readonly goal: string;
  readonly tags: readonly string[];
  readonly maxTurns: number | null;
  readonly ceilingUsd: number | null;
  readonly turns: number;
  /** Sum of the turns' `cost_usd`. */
  readonly turnCostUsd: number;
  readonly calls: readonly RunCall[];
  /** `call_id`s answered by a result. */
  readonly answered: ReadonlySet<string>;
  /** Kinds of the member's other records on the thread (its deliverables), without repeats. */
  readonly written: ReadonlySet<string>;
  readonly outcome: { readonly outcome: unknown; readonly turns: unknown; readonly spentUsd: unknown } | null;
  /** The last record judged (the outcome once there is one; what a grade cites as `through`) and how many from the opening one. */
  readonly through: string;
  readonly records: number;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const finite = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The run log of a run thread's records, oldest first (from its first `core.work.run.v1` up to its first outcome); null without an opening record. */
export function runLogOf(records: readonly LoomRecord[]): RunLog | null {
  const start = records.findIndex((record) => record.body['kind'] === KIND_RUN);
  if (start < 0) return null;
  const opening = records[start]!;
  const member = opening.actor;
  const body = opening.body;
  let turns = 0;
  let turnCostUsd = 0;
  const calls: RunCall[] = [];
  const answered = new Set<string>();
  const written = new Set<string>();
  let outcome: RunLog['outcome'] = null;
  let last = start;
  for (let i = start + 1; i < records.length && outcome === null; i++) {
    const record = records[i]!;
    last = i;
    if (record.actor !== member) continue;
    const kind = record.body['kind'];
    if (kind === KIND_TURN) {
      turns++;
      turnCostUsd += finite(record.body['cost_usd']) ?? 0;
    } else if (kind === KIND_TOOL_CALL) {
      calls.push({ id: record.id, callId: text(record.body['call_id']), tool: text(record.body['tool']), input: record.body['input'] });
    } else if (kind === KIND_TOOL_RESULT) {
      const callId = text(record.body['call_id']);
      if (callId !== null) answered.add(callId);
    } else if (kind === KIND_LOOP_OUTCOME) {
      // The first outcome ends the run: what follows it is not judged (the loop stops reading).
      outcome = { outcome: record.body['outcome'], turns: record.body['turns'], spentUsd: record.body['spent_usd'] };
    } else if (typeof kind === 'string' && !RUN_KINDS.has(kind)) {
      written.add(kind);
    }
  }
  const tags = Array.isArray(body['tags']) ? body['tags'].filter((tag): tag is string => typeof tag === 'string') : [];
  return {
    member,
    thread: opening.thread,
    runId: opening.id,
    goal: text(body['goal']) ?? '',
    tags,
    maxTurns: finite(body['max_turns']),
    ceilingUsd: finite(body['ceiling_usd']),
    turns,
    turnCostUsd,
    calls,
    answered,
    written,
    outcome,
    through: records[last]!.id,
    records: last - start + 1,
  };
}
