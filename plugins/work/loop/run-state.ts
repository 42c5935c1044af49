/**
 * A run as its thread tells it: the opening, each turn with its tool calls
 * and their results, people's messages and cancels, and the outcome. Pure,
 * rebuilt from the records alone, so a restarted server (or a reader with
 * the records) knows exactly where the run stands: a tool call with a result
 * record is done and never run again, one without is still to run, and a
 * turn not on record is still to ask for.
 *
 * Only the member's own records count as the run's account (as in the
 * member_runs fold); messages and cancels count from anyone who may write
 * on the thread.
 */
import type { JsonObject } from '../../../core/records/json.js';
import type { StoredRecord } from '../../../storage/contract/stored-record.js';
import { KIND_DECISION_ANSWER, KIND_DECISION_REQUEST, KIND_LOOP_CANCEL, KIND_LOOP_OUTCOME, KIND_RUN, KIND_TOOL_CALL, KIND_TOOL_RESULT, KIND_TURN } from '../../members/index.js';
import { KIND_GUARDRAIL, KIND_RUN_MESSAGE } from './work-kinds.js';

export interface CallState {
  readonly id: string;
  readonly callId: string;
  readonly tool: string;
  readonly input: JsonObject;
  readonly inputError: string | null;
  readonly rawInput: string | null;
  result: { readonly id: string; readonly ok: boolean; readonly content: string; readonly errorCode: string | null } | null;
}

/** A call the model asked for, as its tool_call record says it (less kind and turn). */
export interface DeclaredCall {
  readonly call_id: string;
  readonly tool: string;
  readonly input: JsonObject;
  readonly input_error?: string;
  readonly raw_input?: string;
}

export interface TurnState {
  readonly id: string;
  readonly turn: number;
  readonly text: string;
  readonly stopReason: string | null;
  readonly rawStopReason: string | null;
  readonly calls: CallState[];
  /** People's messages that landed after this turn: the next user message carries them. */
  readonly messagesAfter: string[];
}

/** A decision the run raised about one of its calls, and its answer once one landed. */
export interface AskState {
  /** The request record id (what the decide door names). */
  readonly id: string;
  /** The call record it is about. */
  readonly call: string;
  readonly body: JsonObject;
  answer: { readonly id: string; readonly by: string; readonly body: JsonObject; readonly cancelled: boolean } | null;
}

export interface RunState {
  readonly thread: string;
  readonly openingId: string;
  readonly opening: JsonObject;
  readonly actor: string;
  readonly startedAt: number;
  /** Messages that landed before the first turn. */
  readonly messagesBefore: string[];
  readonly turns: TurnState[];
  inputTokens: number;
  outputTokens: number;
  spentUsd: number;
  /** Who cancelled (the record id), or null. */
  cancel: { readonly id: string; readonly by: string; readonly reason: string | null } | null;
  outcome: { readonly id: string; readonly body: JsonObject } | null;
  /** Blocked identical calls by their guardrail key (the guardrail records). */
  readonly blocked: Map<string, number>;
  /** The decisions it raised, by the call record each is about. */
  readonly asks: Map<string, AskState>;
  /** Time spent waiting on people (answered asks, by the injected clock): the wall clock leaves it out. */
  waitedMs: number;
  /** The last record of the run's own account: what the next one cites as its parent. */
  lastOwnId: string;
  /** The highest sequence read. */
  watermark: number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * Builds a run's state record by record, in sequence order: the driver adds
 * what it reads or writes as it goes, so a turn costs the records it added,
 * not a rebuild of the whole run.
 */
export class RunStateBuilder {
  state: RunState | null = null;
  private readonly calls = new Map<string, CallState>();
  /** Messages since the last turn record, and where they were put: a turn whose model call never read them takes them after itself. */
  private sinceTurn: { sequence: number; words: string; bucket: string[] }[] = [];

  add(stored: StoredRecord): void {
    let state = this.state;
    const calls = this.calls;
    const { record } = stored;
    const kind = record.body['kind'];
    if (state === null) {
      if (kind !== KIND_RUN) return;
      this.state = state = {
        thread: record.thread,
        openingId: record.id,
        opening: record.body,
        actor: record.actor,
        startedAt: stored.createdAt,
        messagesBefore: [],
        turns: [],
        inputTokens: 0,
        outputTokens: 0,
        spentUsd: 0,
        cancel: null,
        outcome: null,
        blocked: new Map(),
        asks: new Map(),
        waitedMs: 0,
        lastOwnId: record.id,
        watermark: stored.sequence,
      };
      return;
    }
    state.watermark = Math.max(state.watermark, stored.sequence);
    if (state.outcome) return;
    if (kind === KIND_LOOP_CANCEL) {
      state.cancel ??= { id: record.id, by: record.actor, reason: typeof record.body['reason'] === 'string' ? record.body['reason'] : null };
      return;
    }
    if (kind === KIND_RUN_MESSAGE) {
      const words = text(record.body['text']);
      if (words === '') return;
      const last = state.turns.at(-1);
      const bucket = last ? last.messagesAfter : state.messagesBefore;
      bucket.push(words);
      this.sinceTurn.push({ sequence: stored.sequence, words, bucket });
      return;
    }
    if (kind === KIND_DECISION_ANSWER) {
      // From whoever answered (the decide door writes it in the decider's name; the gate admits it from the work plugin only).
      const target = text(record.body['fulfills']) || text(record.body['cancels']);
      for (const ask of state.asks.values()) {
        if (ask.id !== target || ask.answer !== null) continue;
        ask.answer = { id: record.id, by: record.actor, body: record.body, cancelled: typeof record.body['cancels'] === 'string' };
        const raised = num(ask.body['raised_at_ms']);
        const answered = num(record.body['answered_at_ms']);
        if (raised > 0 && answered > raised) state.waitedMs += answered - raised;
      }
      return;
    }
    if (record.actor !== state.actor) return;
    if (kind === KIND_DECISION_REQUEST) {
      const call = text((record.body['call'] as { record?: unknown } | undefined)?.record);
      if (call && !state.asks.has(call)) state.asks.set(call, { id: record.id, call, body: record.body, answer: null });
    } else if (kind === KIND_TURN) {
      state.turns.push({
        id: record.id,
        turn: num(record.body['turn']),
        text: text(record.body['text']),
        stopReason: typeof record.body['stop_reason'] === 'string' ? record.body['stop_reason'] : null,
        rawStopReason: typeof record.body['raw_stop_reason'] === 'string' ? record.body['raw_stop_reason'] : null,
        calls: [],
        messagesAfter: [],
      });
      // The model call that answered this turn read the thread up to `read_through`: messages that landed later follow the turn.
      const readThrough = record.body['read_through'];
      if (typeof readThrough === 'number') {
        const turn = state.turns.at(-1)!;
        for (const message of this.sinceTurn) {
          if (message.sequence <= readThrough) return;
          message.bucket.splice(message.bucket.lastIndexOf(message.words), 1);
          turn.messagesAfter.push(message.words);
        }
      }
      this.sinceTurn = [];
      state.inputTokens += num(record.body['input_tokens']);
      state.outputTokens += num(record.body['output_tokens']);
      state.spentUsd += num(record.body['cost_usd']);
    } else if (kind === KIND_TOOL_CALL) {
      const turn = state.turns.at(-1);
      if (!turn) return;
      const call: CallState = {
        id: record.id,
        callId: text(record.body['call_id']),
        tool: text(record.body['tool']),
        input: (record.body['input'] && typeof record.body['input'] === 'object' && !Array.isArray(record.body['input']) ? record.body['input'] : {}) as JsonObject,
        inputError: typeof record.body['input_error'] === 'string' ? record.body['input_error'] : null,
        rawInput: typeof record.body['raw_input'] === 'string' ? record.body['raw_input'] : null,
        result: null,
      };
      turn.calls.push(call);
      calls.set(call.callId, call);
    } else if (kind === KIND_TOOL_RESULT) {
      const call = calls.get(text(record.body['call_id']));
      if (!call || call.result) return;
      const error = record.body['error'] as { code?: unknown; message?: unknown } | null;
      const ok = record.body['ok'] === true;
      call.result = {
        id: record.id,
        ok,
        content: ok ? resultText(record.body['output']) : `${text(error?.code)}: ${text(error?.message)}`,
        errorCode: ok ? null : text(error?.code) || 'TOOL_FAILED',
      };
    } else if (kind === KIND_GUARDRAIL) {
      const key = text(record.body['key']);
      if (key) state.blocked.set(key, (state.blocked.get(key) ?? 0) + 1);
    } else if (kind === KIND_LOOP_OUTCOME) {
      state.outcome = { id: record.id, body: record.body };
    }
    state.lastOwnId = record.id;
  }
}

/** The state of the run opened by the first `core.work.run.v1` in `records` (sequence order), or null when there is none. */
export function readRun(records: readonly StoredRecord[]): RunState | null {
  const builder = new RunStateBuilder();
  for (const stored of records) builder.add(stored);
  return builder.state;
}

/** What the model reads of a tool's output: text as is, anything else as its JSON. */
export function resultText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  return JSON.stringify(output);
}

/** The decision the run waits on (raised, not yet answered or cancelled), or null. */
export function openAsk(state: RunState): AskState | null {
  for (const ask of state.asks.values()) if (ask.answer === null) return ask;
  return null;
}

/** The calls of the last turn still without a result (to run, in order). */
export function pendingCalls(state: RunState): CallState[] {
  return state.turns.at(-1)?.calls.filter((call) => call.result === null) ?? [];
}
