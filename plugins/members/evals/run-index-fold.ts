/**
 * member_runs: every run on record, indexed by (member, definition) and by
 * member, so scoring finds the runs under a definition and the run doors
 * (plugins/members/runs/) answer a run row without scanning the log. A run
 * is the first `core.work.run.v1` on its thread (the thread id is the run
 * id) naming a definition; it has ended once its member wrote a
 * `core.work.loop_outcome.v1` there. Each entry also carries the tallies of
 * the run row (spec §2.6): turns, spend and tokens, tool results, receipt
 * times, the opening and closing bodies. Only the member's own records up
 * to its first outcome count (run-records.ts), as in run-log.ts. O(1) per
 * record: a kind test and a map lookup by thread.
 *
 * Pure (records in, state out; it imports only the record algebra and the
 * fold contract), so the SDK recomputes a run row offline with this very
 * code (sdk/verify-run.ts); its handle lives in run-index-token.ts.
 */
import type { Fold } from '../../../core/folds/fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import { isRecordId } from '../../../core/records/record-id.js';
import { KIND_DECISION_ANSWER, KIND_DECISION_REQUEST, KIND_LOOP_OUTCOME, KIND_RUN, KIND_TOOL_RESULT, KIND_TURN } from './run-records.js';

export const MEMBER_RUNS_FOLD = 'member_runs';

export interface RunEntry {
  /** The run's thread (the run id). */
  readonly thread: string;
  /** Its opening record id. */
  readonly id: string;
  readonly actor: string;
  /** The definition record the run is under; null for a person's own loop (POST /v1/work/loop), which runs under none. */
  readonly definition: string | null;
  readonly sequence: number;
  /** The outcome once ended (`completed`, `cancelled`, …), else null. */
  outcome: string | null;
  /** The opening `core.work.run.v1` body, as written. */
  readonly opening: JsonObject;
  /** Receipt time of the opening record (Unix ms), null in inputs built by hand. */
  readonly startedAt: number | null;
  /** Receipt time of the outcome record. */
  endedAt: number | null;
  /** The member's `core.work.turn.v1` records before the outcome, and their sums. */
  turns: number;
  turnCostUsd: number;
  inputTokens: number;
  outputTokens: number;
  /** The member's `core.work.tool_result.v1` records before the outcome, by `ok`. */
  toolOk: number;
  toolFailed: number;
  /** The outcome body once ended. */
  end: JsonObject | null;
  /**
   * The open decision (the member's `core.work.decision_request.v1` not yet
   * fulfilled or cancelled): its record id, sequence, receipt time and body.
   * A run holds at most one at a time (the loop waits on it); null when none.
   */
  ask: OpenAsk | null;
}

export interface OpenAsk {
  readonly id: string;
  readonly sequence: number;
  readonly at: number | null;
  readonly body: JsonObject;
}

export interface RunIndexState {
  runs: Map<string, RunEntry>;
  /** By `runKey(actor, definition)`, oldest first. */
  byDefinition: Map<string, RunEntry[]>;
  /** By the member that ran, oldest first. */
  byActor: Map<string, RunEntry[]>;
  /** Every run, oldest first (the run list reads it from the end). */
  order: RunEntry[];
  /** Runs with an open decision, by thread (GET /v1/decisions reads it instead of every run). */
  asking: Map<string, RunEntry>;
}

export const runKey = (actor: string, definition: string): string => `${actor}\n${definition}`;

const finite = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function push<K>(map: Map<K, RunEntry[]>, key: K, entry: RunEntry): void {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  list.push(entry);
}

function index(state: RunIndexState, entry: RunEntry): void {
  state.runs.set(entry.thread, entry);
  if (entry.definition !== null) push(state.byDefinition, runKey(entry.actor, entry.definition), entry);
  push(state.byActor, entry.actor, entry);
  state.order.push(entry);
  if (entry.ask) state.asking.set(entry.thread, entry);
}

const empty = (): RunIndexState => ({ runs: new Map(), byDefinition: new Map(), byActor: new Map(), order: [], asking: new Map() });

export const memberRunsFold: Fold<RunIndexState, { runs: number; ended: number }> = {
  name: MEMBER_RUNS_FOLD,
  scope: 'global',
  description: 'Runs on record by member and definition (the opening core.work.run.v1 of each run thread), whether each has ended, and the tallies of its run row.',
  ignoresSystemThreads: true,
  kinds: [KIND_RUN, KIND_DECISION_ANSWER, KIND_DECISION_REQUEST, KIND_LOOP_OUTCOME, KIND_TURN, KIND_TOOL_RESULT],
  initial: empty,
  apply(state, { record, sequence, createdAt }) {
    const kind = record.body['kind'];
    if (kind === KIND_RUN) {
      const definition = record.body['definition'];
      if (state.runs.has(record.thread) || (definition !== null && !isRecordId(definition))) return state;
      index(state, {
        thread: record.thread,
        id: record.id,
        actor: record.actor,
        definition: definition ?? null,
        sequence,
        outcome: null,
        opening: record.body,
        startedAt: createdAt ?? null,
        endedAt: null,
        turns: 0,
        turnCostUsd: 0,
        inputTokens: 0,
        outputTokens: 0,
        toolOk: 0,
        toolFailed: 0,
        end: null,
        ask: null,
      });
      return state;
    }
    if (kind === KIND_DECISION_ANSWER) {
      // Whoever answers (the decide door writes it in the decider's name): it closes the ask it names.
      const entry = state.runs.get(record.thread);
      const closes = record.body['fulfills'] ?? record.body['cancels'];
      if (entry?.ask && closes === entry.ask.id) {
        entry.ask = null;
        state.asking.delete(entry.thread);
      }
      return state;
    }
    if (kind === KIND_DECISION_REQUEST) {
      const entry = state.runs.get(record.thread);
      if (!entry || entry.outcome !== null || record.actor !== entry.actor || record.body['awaits'] !== 'actor_decision') return state;
      entry.ask = { id: record.id, sequence, at: createdAt ?? null, body: record.body };
      state.asking.set(entry.thread, entry);
      return state;
    }
    if (kind !== KIND_LOOP_OUTCOME && kind !== KIND_TURN && kind !== KIND_TOOL_RESULT) return state;
    const entry = state.runs.get(record.thread);
    // Only the member's own records before its first outcome count (run-records.ts): no one adds to someone else's run.
    if (!entry || entry.outcome !== null || record.actor !== entry.actor) return state;
    if (kind === KIND_TURN) {
      entry.turns++;
      entry.turnCostUsd += finite(record.body['cost_usd']);
      entry.inputTokens += finite(record.body['input_tokens']);
      entry.outputTokens += finite(record.body['output_tokens']);
    } else if (kind === KIND_TOOL_RESULT) {
      if (record.body['ok'] === true) entry.toolOk++;
      else entry.toolFailed++;
    } else {
      entry.outcome = typeof record.body['outcome'] === 'string' ? record.body['outcome'] : 'unknown';
      entry.end = record.body;
      entry.endedAt = createdAt ?? null;
      // An ended run asks nothing (its outcome's writer cancels the ask too; this holds whoever wrote it).
      entry.ask = null;
      state.asking.delete(entry.thread);
    }
    return state;
  },
  value: (state) => {
    let ended = 0;
    for (const entry of state.runs.values()) if (entry.outcome !== null) ended++;
    return { runs: state.runs.size, ended };
  },
  checkpoint: {
    version: 4,
    save: (state) => state.order,
    load: (saved) => {
      const state = empty();
      for (const entry of saved as RunEntry[]) index(state, { ...entry, ask: entry.ask ?? null });
      return state;
    },
  },
};
