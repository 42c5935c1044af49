/**
 * Drives one run from wherever its thread says it stands to its outcome:
 * runs the last turn's calls that have no result yet, checks the ceilings,
 * asks the model for the next turn (its output ceiling clamped to what the
 * budgets leave), records the turn and its calls, and repeats. Every step
 * is a record written before the next begins, so a server killed at any
 * point resumes from the thread: a call with a result is never run again,
 * a turn not on record is asked for again (the interrupted model call,
 * retried once).
 *
 * Ceilings end a run with a recorded outcome, never an exception. A cancel
 * (a `core.work.loop_cancel.v1` on the thread, or the engine's abort) stops
 * the provider stream through its abort signal; a server stopping aborts
 * without an outcome, so the next start resumes the run.
 *
 * A call that needs a person (decisions/decision-request.ts) raises a
 * decision and the driver returns: the run is `waiting_on_you`, holds no
 * provider connection and nothing in memory, and has no timeout. The engine
 * drives it again when the answer lands (or at the next start, when a
 * restart came between); a run whose pending call's ask is unanswered goes
 * straight back to waiting without calling the provider.
 */
import { SYSTEM } from '../../../core/access/caller.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { RecordWriter, SequencedWrite } from '../../../core/engine/record-writer.js';
import type { JsonObject, JsonValue } from '../../../core/records/json.js';
import type { Logger } from '../../../core/plugin/logger.js';
import type { StoredRecord } from '../../../storage/contract/stored-record.js';
import { KIND_DECISION_ANSWER, KIND_LOOP_OUTCOME, KIND_TOOL_CALL, KIND_TOOL_RESULT, KIND_TURN, runStateOf, type Outcome, type PricedModel, type ToolRegistry } from '../../members/index.js';
import { ProviderError, type ModelProviders, type ModelRequest, type ModelTurn, type ToolSpec } from '../providers/index.js';
import { ceilingsOf, type RunCeilings } from './ceilings.js';
import { conversation } from './conversation.js';
import { callerOf, grantOf } from './run-grant.js';
import { openAsk, pendingCalls, RunStateBuilder, type CallState, type DeclaredCall, type RunState } from './run-state.js';
import { ASK_TOOL, ASK_TOOL_SPEC, askFields, gateFields, PROPOSE_BLUEPRINT_TOOL, requestBody, type RequestFields } from '../decisions/decision-request.js';
import type { DailySpend } from './daily-spend.js';
import { guardrail, runTool } from './tool-runner.js';
import { GUARDRAIL_THRESHOLD, KIND_COERCION, KIND_DISPATCH_ANSWER, KIND_GUARDRAIL, KIND_PROVIDER_ERROR, type BudgetKind, type CoercionReason } from './work-kinds.js';

/** Output ceiling of one call when no budget is tighter. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 8_192;

/**
 * The least output a call is made with: a budget that leaves room for fewer
 * tokens than this is exhausted, since no useful answer (a tool call with
 * its input, a closing sentence) fits in less, and a call cut at a handful
 * of tokens would spend its input for nothing.
 */
export const MIN_OUTPUT_TOKENS = 64;

/** Why a run's abort signal fired. */
export type StopReason = 'cancel' | 'shutdown' | 'wall_clock';

export interface DriverDeps {
  readonly reader: RecordReader;
  readonly writer: RecordWriter;
  readonly providers: () => ModelProviders;
  readonly model: (id: string) => PricedModel | undefined;
  readonly tools: ToolRegistry;
  readonly spend: DailySpend;
  readonly clock: () => number;
  readonly log: Logger;
  /** The system prompt's words (the prompt record's text), or null. */
  readonly promptText: (promptRecordId: string | null) => Promise<string | null>;
  readonly maxOutputTokens?: number;
  /** Decisions (issue 34): absent, no call waits on a person and `ask` is not offered. */
  readonly decisions?: DriverDecisions;
}

/** What the driver asks of the decisions part when a call may need a person. */
export interface DriverDecisions {
  /** Whether a destructive call of this run waits on approval (its tier's `approve_destructive`, read live). */
  approveDestructive(opening: Readonly<Record<string, unknown>>, actor: string): boolean;
  /** The request fields of a member's blueprint proposal (the plan as its owner would install it), or why it cannot be proposed. */
  proposal(actor: string, input: JsonObject): Promise<RequestFields | { invalid: string; code: string }>;
}

/** What a call that may need a person comes to: wait, answered in the person's words (a result written), or run it. */
type Gated = 'wait' | 'answered' | 'run';

interface Gate {
  readonly about: 'tool_call' | 'ask' | 'blueprint_proposal';
  readonly why: string;
}

interface Ending {
  readonly outcome: Outcome;
  readonly budgetKind?: BudgetKind | null;
  readonly summary?: string | null;
  readonly extra?: JsonObject;
}

const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

/** Whether the catalog price differs from the one the run opened with (each turn then says its own). */
function priceChanged(opening: Readonly<Record<string, unknown>>, model: PricedModel): boolean {
  const price = opening['price'] as { input_usd_per_mtok?: unknown; output_usd_per_mtok?: unknown } | undefined;
  return price?.input_usd_per_mtok !== model.input_usd_per_mtok || price?.output_usd_per_mtok !== model.output_usd_per_mtok;
}

export class RunDriver {
  /** The run's records as read or written here (not in sequence order when others wrote between ours). */
  private readonly records: StoredRecord[] = [];
  private readonly builder = new RunStateBuilder();
  /** The highest sequence read from the store: the next read starts after it. */
  private storeRead = 0;
  /** Records this driver wrote and added already, skipped when a read meets them again. */
  private readonly written = new Set<string>();
  /** Set by the engine: why `signal` fired. */
  stopReason: StopReason | null = null;

  private armed = false;

  constructor(
    readonly thread: string,
    private readonly deps: DriverDeps,
    private readonly signal: AbortSignal,
    /** Arms the wall clock with what is left of it (the engine's timer), once the run's state is read. */
    private readonly armWallClock: (leftMs: number) => void = () => undefined,
  ) {}

  /** Drives the run to its outcome, or until the signal fires for a shutdown. Never throws for the run's own failures. */
  async drive(): Promise<void> {
    for (;;) {
      // Between tool calls the run's own writes are all there is to know; before a decision (complete, or ask the model) read what others wrote.
      const known = this.builder.state;
      const state = known !== null && pendingCalls(known).length > 0 && !known.outcome ? known : await this.refresh();
      if (!state || state.outcome) return;
      if (this.stopReason === 'shutdown') return;
      if (state.cancel || this.stopReason === 'cancel') return void (await this.end(state, { outcome: 'cancelled', summary: state.cancel?.reason ?? null }));
      // A run still waiting on a person has no wall clock running (it goes straight back to waiting).
      if (openAsk(state) === null) this.arm(state);
      const ending = await this.step(state);
      // Waiting on a person: let go of everything; the answer (or the next start) drives the run again.
      if (ending === 'wait') return;
      if (ending) return void (await this.end(await this.refresh() ?? state, ending));
    }
  }

  private get state(): RunState | null {
    return this.builder.state;
  }

  /** Reads the records written since the last read (others' messages and cancels among them) into the run's state. */
  private async refresh(): Promise<RunState | null> {
    for await (const stored of this.deps.reader.records(SYSTEM, this.thread, { after: this.storeRead })) {
      this.storeRead = stored.sequence;
      if (this.written.delete(stored.record.id)) continue;
      this.add(stored);
    }
    return this.builder.state;
  }

  private add(stored: StoredRecord): void {
    this.records.push(stored);
    this.builder.add(stored);
  }

  /** The wall clock left, once per drive: the time waited on people does not count (a decision has no timeout). */
  private arm(state: RunState): void {
    if (this.armed) return;
    this.armed = true;
    const secs = ceilingsOf(state.opening).wall_clock_secs;
    if (secs !== null) this.armWallClock(secs * 1000 - (this.deps.clock() - state.startedAt - state.waitedMs));
  }

  /** One step: the pending calls, else the completion rule, else the ceilings and one model turn. Answers an ending, null to go on, or `wait`. */
  private async step(state: RunState): Promise<Ending | null | 'wait'> {
    const pending = pendingCalls(state);
    if (pending.length > 0) return this.runCalls(state);
    const last = state.turns.at(-1);
    if (last && last.calls.length === 0) {
      if (last.stopReason === 'refusal') {
        await this.coerce(state, 'precondition_failed', `the model declined: ${last.text.slice(0, 500)}`);
        return { outcome: 'blocked', summary: last.text.slice(0, 2_000) || null, extra: { coercion_reason: 'precondition_failed' } };
      }
      // The completion rule: a turn without tool calls ends the run, unless it was cut off (it then goes on).
      if (last.stopReason !== 'max_tokens' && last.rawStopReason !== 'pause_turn' && last.messagesAfter.length === 0) return { outcome: 'completed', summary: last.text.slice(0, 2_000) || null };
    }
    const ceilings = ceilingsOf(state.opening);
    if (ceilings.max_turns !== null && state.turns.length >= ceilings.max_turns) return { outcome: 'max_turns' };
    if (this.overWallClock(state, ceilings)) return { outcome: 'budget_exhausted', budgetKind: 'wall_clock' };
    return this.modelTurn(state, ceilings);
  }

  private overWallClock(state: RunState, ceilings: RunCeilings): boolean {
    return ceilings.wall_clock_secs !== null && this.deps.clock() - state.startedAt - state.waitedMs >= ceilings.wall_clock_secs * 1000;
  }

  private async runCalls(state: RunState): Promise<Ending | null | 'wait'> {
    const grant = grantOf(state.opening);
    const granted = Array.isArray(state.opening['tools']) ? (state.opening['tools'] as unknown[]).filter((name): name is string => typeof name === 'string') : [];
    for (const call of pendingCalls(state)) {
      // Aborted: the ending its reason calls for (a cancel or the wall clock end the run; a shutdown leaves it to resume).
      if (this.signal.aborted) return this.aborted();
      const verdict = guardrail(state, call);
      if (verdict.verdict !== 'run') {
        await this.write('KNOW', { kind: KIND_GUARDRAIL, verdict: verdict.verdict, tool: call.tool, args_hash: verdict.argsHash, key: verdict.key, count: verdict.count, threshold: GUARDRAIL_THRESHOLD }, [call.id]);
        if (verdict.verdict === 'halt') return { outcome: 'guardrail_halt', extra: { tool: call.tool, args_hash: verdict.argsHash, count: verdict.count, threshold: GUARDRAIL_THRESHOLD } };
        await this.result(call.id, call.callId, { ok: false, output: null, error: { code: 'GUARDRAIL_BLOCKED', message: `this exact call failed ${verdict.count} times; it was not run. Change the input or take another approach.` }, durationMs: 0 });
        state = this.state!;
        continue;
      }
      const gate = this.gateOf(state, call, granted);
      if (gate !== null) {
        const gated = await this.gated(state, call, gate);
        if (gated === 'wait') return 'wait';
        state = this.state!;
        if (gated === 'answered') continue;
      }
      if (!grant) {
        await this.result(call.id, call.callId, { ok: false, output: null, error: { code: 'TOOL_NOT_GRANTED', message: 'this run carries no grant to run tools with' }, durationMs: 0 });
        continue;
      }
      const outcome = await runTool(this.deps.tools, granted, call, { caller: callerOf(grant), member: state.actor, runThread: this.thread, signal: this.signal });
      // A call interrupted by a stop is run again after the restart (its result was never recorded), not recorded as failed.
      if (this.signal.aborted && this.stopReason === 'shutdown') return null;
      await this.result(call.id, call.callId, outcome);
      state = this.state!;
    }
    return null;
  }

  /** Whether the call waits on a person, and why: `ask`, a granted `propose_blueprint`, a tool the definition gates, a destructive one where the tier does. */
  private gateOf(state: RunState, call: CallState, granted: readonly string[]): Gate | null {
    const decisions = this.deps.decisions;
    if (!decisions || call.inputError !== null) return null;
    if (call.tool === ASK_TOOL) return { about: 'ask', why: 'the member asked' };
    if (!granted.includes(call.tool)) return null;
    if (call.tool === PROPOSE_BLUEPRINT_TOOL) return { about: 'blueprint_proposal', why: 'the member proposes a blueprint' };
    const gated = Array.isArray(state.opening['approval_required']) && (state.opening['approval_required'] as unknown[]).includes(call.tool);
    if (gated) return { about: 'tool_call', why: `the member's definition requires a person's approval for every ${call.tool} call` };
    if (this.deps.tools.get(call.tool)?.destructive === true && decisions.approveDestructive(state.opening, state.actor)) return { about: 'tool_call', why: `${call.tool} is destructive and the run's tier requires a person's approval for destructive calls` };
    return null;
  }

  /**
   * A call that needs a person: raise its decision (then wait), wait while it
   * is open, or act on the answer. `ask` gets the answer's words as its
   * result; a rejected call (or proposal) gets an error result carrying the
   * reason verbatim, and only that call is affected; an approved call runs.
   */
  private async gated(state: RunState, call: CallState, gate: Gate): Promise<Gated> {
    const ask = state.asks.get(call.id);
    if (!ask) {
      const fields = gate.about === 'ask' ? askFields(call.input) : gate.about === 'blueprint_proposal' ? await this.deps.decisions!.proposal(state.actor, call.input) : gateFields(call.tool, gate.why);
      if ('invalid' in fields) {
        const code = 'code' in fields && typeof fields.code === 'string' ? fields.code : 'INPUT_INVALID';
        await this.result(call.id, call.callId, { ok: false, output: null, error: { code, message: fields.invalid }, durationMs: 0 });
        return 'answered';
      }
      await this.write('KNOW', requestBody(fields, this.thread, { record: call.id, call_id: call.callId, tool: call.tool, input: call.input }, this.deps.clock()), [call.id]);
      return 'wait';
    }
    if (ask.answer === null || ask.answer.cancelled) return 'wait';
    const answer = ask.answer.body;
    const words = typeof answer['words'] === 'string' ? answer['words'] : '';
    if (gate.about === 'ask') {
      await this.result(call.id, call.callId, { ok: true, output: words, error: null, durationMs: 0 });
      return 'answered';
    }
    if (answer['approved'] === true) {
      if (gate.about === 'tool_call') return 'run';
      await this.result(call.id, call.callId, { ok: true, output: { installed: true, approved_by: ask.answer.by, ...((answer['installed'] ?? {}) as JsonObject) }, error: null, durationMs: 0 });
      return 'answered';
    }
    const reason = typeof answer['reason'] === 'string' && answer['reason'].trim() !== '' ? answer['reason'] : null;
    const what = gate.about === 'tool_call' ? 'this call; it was not run' : 'this blueprint proposal; nothing was installed';
    await this.result(call.id, call.callId, { ok: false, output: null, error: { code: 'REJECTED', message: `${ask.answer.by} rejected ${what}. ${reason === null ? 'No reason was given.' : `Reason: ${reason}`}` }, durationMs: 0 });
    return 'answered';
  }

  private async result(callRecord: string, callId: string, outcome: { ok: boolean; output: JsonValue; error: { code: string; message: string } | null; durationMs: number }): Promise<void> {
    await this.write('KNOW', { kind: KIND_TOOL_RESULT, call_id: callId, ok: outcome.ok, output: outcome.output, error: outcome.error, duration_ms: outcome.durationMs }, [callRecord]);
  }

  private async modelTurn(state: RunState, ceilings: RunCeilings): Promise<Ending | null> {
    const modelId = typeof state.opening['model'] === 'string' ? state.opening['model'] : '';
    const model = this.deps.model(modelId);
    const adapter = model ? this.deps.providers().get(model.provider) : undefined;
    if (!model || !adapter) {
      await this.write('KNOW', { kind: KIND_PROVIDER_ERROR, turn: state.turns.length + 1, attempt: 1, final: true, provider: model?.provider ?? null, type: 'no_provider', status: null, code: null, retry_after_ms: null, request_id: null, message: model ? `no ${model.provider} provider is configured on this instance` : `model ${modelId} is not in the catalog` }, [state.lastOwnId]);
      return { outcome: 'failed', summary: 'no provider for the run\'s model' };
    }
    const request = await this.request(state, model.id);
    const clamp = await this.clamp(state, ceilings, model, request);
    if ('exhausted' in clamp) return this.signal.aborted ? this.aborted() : { outcome: 'budget_exhausted', budgetKind: clamp.exhausted };
    const turnNumber = state.turns.length + 1;
    let answer: ModelTurn;
    const retries: Promise<unknown>[] = [];
    let attempts = 1;
    try {
      answer = await adapter.complete(
        { ...request, maxTokens: clamp.maxTokens },
        {
          signal: this.signal,
          onRetry: (notice) => {
            attempts = notice.attempt + 1;
            retries.push(this.write('KNOW', { kind: KIND_PROVIDER_ERROR, turn: turnNumber, attempt: notice.attempt, final: false, retry_in_ms: notice.delayMs, ...notice.error.toJSON() }, [state.lastOwnId]).catch(() => undefined));
          },
        },
      );
    } catch (error) {
      clamp.release();
      await Promise.all(retries);
      if (this.signal.aborted) return this.aborted();
      const failure = error instanceof ProviderError ? error : new ProviderError(model.provider, 'client_error', error instanceof Error ? error.message : String(error));
      await this.write('KNOW', { kind: KIND_PROVIDER_ERROR, turn: turnNumber, attempt: attempts, final: true, ...failure.toJSON() }, [state.lastOwnId]);
      return { outcome: 'failed', summary: `provider error: ${failure.type}` };
    }
    await Promise.all(retries);
    const usage = answer.usage ?? { inputTokens: clamp.estimatedInput, outputTokens: estimateTokens(answer.text.length + JSON.stringify(answer.toolCalls).length), cacheReadTokens: 0, cacheWriteTokens: 0 };
    const cost = (usage.inputTokens * model.input_usd_per_mtok + usage.outputTokens * model.output_usd_per_mtok) / 1_000_000;
    const parents = state.turns.at(-1)?.calls.map((call) => call.result?.id ?? call.id) ?? [];
    const calls: DeclaredCall[] = answer.toolCalls.map((call) => ({
      call_id: call.id,
      tool: call.name,
      input: call.input as JsonObject,
      ...(call.inputError === undefined ? {} : { input_error: call.inputError }),
      ...(call.rawInput === undefined ? {} : { raw_input: call.rawInput }),
    }));
    try {
      const turnBody: JsonObject = {
          kind: KIND_TURN,
          turn: turnNumber,
          resolution_path: `provider:${model.provider}/${model.id}`,
          text: answer.text,
          stop_reason: answer.stopReason,
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          cost_usd: cost,
          max_tokens: clamp.maxTokens,
          // The thread as far as the request read it: a message that landed during the call follows this turn.
          read_through: state.watermark,
          // Only what says more than the rest of the record: a turn is stored once per turn of every run.
          ...(answer.rawStopReason !== answer.stopReason ? { raw_stop_reason: answer.rawStopReason } : {}),
          ...(answer.model !== model.id ? { model: answer.model } : {}),
          ...(usage.cacheReadTokens > 0 ? { cache_read_tokens: usage.cacheReadTokens } : {}),
          ...(usage.cacheWriteTokens > 0 ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
          ...(answer.usage === null ? { usage_estimated: true } : {}),
          ...(priceChanged(state.opening, model) ? { price: { input_usd_per_mtok: model.input_usd_per_mtok, output_usd_per_mtok: model.output_usd_per_mtok } } : {}),
          ...(answer.requestId !== null ? { request_id: answer.requestId } : {}),
      };
      // The turn and its calls in one commit: a server killed here has stored all of them or none (the model is then asked again).
      await this.writeSequence([
        { act: 'DO', body: turnBody, parents: () => (parents.length > 0 ? parents : [state.lastOwnId]) },
        ...calls.map((call) => ({ act: 'CALL', body: { kind: KIND_TOOL_CALL, ...call, turn: turnNumber } as unknown as JsonObject, parents: (earlier: readonly string[]) => [earlier[0]!] })),
      ]);
    } finally {
      clamp.release();
    }
    return null;
  }

  /** The ending an abort calls for: a cancel or the wall clock end the run; a shutdown leaves it to resume. */
  private aborted(): Ending | null {
    if (this.stopReason === 'wall_clock') return { outcome: 'budget_exhausted', budgetKind: 'wall_clock' };
    if (this.stopReason === 'cancel') return { outcome: 'cancelled' };
    return null;
  }

  private async request(state: RunState, model: string): Promise<Omit<ModelRequest, 'maxTokens'>> {
    const granted = Array.isArray(state.opening['tools']) ? (state.opening['tools'] as unknown[]).filter((name): name is string => typeof name === 'string') : [];
    const tools: ToolSpec[] = [];
    for (const name of granted) {
      const tool = this.deps.tools.get(name);
      if (tool) tools.push({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as unknown as Record<string, unknown> });
    }
    // `ask` is offered to every run (a kernel built-in, not a registry tool).
    if (this.deps.decisions && !granted.includes(ASK_TOOL)) tools.push(ASK_TOOL_SPEC);
    const prompt = await this.deps.promptText(typeof state.opening['prompt'] === 'string' ? state.opening['prompt'] : null);
    const system = typeof state.opening['system'] === 'string' ? state.opening['system'] : null;
    return { model, system: [prompt, system].filter((part): part is string => !!part).join('\n\n') || null, messages: conversation(state), tools };
  }

  /**
   * The call's output ceiling: what the token budget, the run's budget and
   * the member's daily cap leave after the estimated input, reserved against
   * the daily cap until the turn is recorded (so two runs of one member never
   * both spend the last cent). Exhausted when nothing is left.
   */
  private async clamp(state: RunState, ceilings: RunCeilings, model: PricedModel, request: Omit<ModelRequest, 'maxTokens'>): Promise<{ maxTokens: number; estimatedInput: number; release: () => void } | { exhausted: BudgetKind }> {
    const previous = state.turns.length > 0 ? this.lastTurnTokens() : 0;
    const newChars = JSON.stringify(request.messages.slice(-2)).length + (state.turns.length === 0 ? JSON.stringify(request.tools).length + (request.system?.length ?? 0) : 0);
    const estimatedInput = previous + estimateTokens(newChars);
    let maxTokens = this.deps.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
    const inputUsd = (estimatedInput * model.input_usd_per_mtok) / 1_000_000;
    const outputTokensFor = (usd: number) => (model.output_usd_per_mtok > 0 ? Math.floor((usd * 1_000_000) / model.output_usd_per_mtok) : Number.POSITIVE_INFINITY);
    if (ceilings.token_budget !== null) {
      const left = ceilings.token_budget - state.inputTokens - state.outputTokens - estimatedInput;
      if (left < MIN_OUTPUT_TOKENS) return { exhausted: 'tokens' };
      maxTokens = Math.min(maxTokens, left);
    }
    if (ceilings.budget_usd !== null) {
      const left = outputTokensFor(ceilings.budget_usd - state.spentUsd - inputUsd);
      if (left < MIN_OUTPUT_TOKENS) return { exhausted: 'cost' };
      maxTokens = Math.min(maxTokens, left);
    }
    const reservation = await this.deps.spend.reserve(
      state.actor,
      ceilings.daily_cost_cap_usd,
      (room) => {
        const left = room === null ? maxTokens : Math.min(maxTokens, outputTokensFor(room - inputUsd));
        return left < MIN_OUTPUT_TOKENS ? null : { tokens: left, usd: inputUsd + (left * model.output_usd_per_mtok) / 1_000_000 };
      },
      this.signal,
    );
    if (!reservation) return { exhausted: 'daily_cost' };
    return { maxTokens: reservation.tokens, estimatedInput, release: reservation.release };
  }

  /** Input plus output tokens of the last turn: the next call's input is at least that. */
  private lastTurnTokens(): number {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const body = this.records[i]!.record.body;
      if (body['kind'] === KIND_TURN && this.records[i]!.record.actor === this.state?.actor) return Number(body['input_tokens'] ?? 0) + Number(body['output_tokens'] ?? 0);
    }
    return 0;
  }

  private async coerce(state: RunState, reason: CoercionReason, narrative: string): Promise<void> {
    await this.write('KNOW', { kind: KIND_COERCION, reason, narrative }, [state.lastOwnId]);
  }

  private async end(state: RunState, ending: Ending): Promise<void> {
    if (state.outcome) return;
    // Every call the model made gets its one result, also when the run ends before running it.
    for (const call of pendingCalls(state)) {
      await this.result(call.id, call.callId, { ok: false, output: null, error: { code: 'RUN_ENDED', message: `the run ended (${ending.outcome}) before this call ran` }, durationMs: 0 });
    }
    if (pendingCalls(state).length > 0) state = this.state ?? state;
    // An ask the run no longer waits on is withdrawn: a DO that cancels it (spec §2.7), before the outcome.
    const open = openAsk(state);
    if (open) await this.write('DO', { kind: KIND_DECISION_ANSWER, cancels: open.id, run: this.thread, reason: `the run ended (${ending.outcome})`, answered_at_ms: this.deps.clock() }, [open.id]);
    const body: JsonObject = {
      kind: KIND_LOOP_OUTCOME,
      outcome: ending.outcome,
      success: ending.outcome === 'completed',
      state: runStateOf(ending.outcome),
      turns: state.turns.length,
      spent_usd: state.spentUsd,
      input_tokens: state.inputTokens,
      output_tokens: state.outputTokens,
      budget_kind: ending.budgetKind ?? null,
      summary: ending.summary ?? (ending.outcome === 'cancelled' ? (state.cancel?.reason ?? null) : null),
      ...(state.cancel ? { cancelled_by: state.cancel.by, cancel: state.cancel.id } : {}),
      // A completed run claims its opening (an INTEND): a verdict on the claim is trust evidence for the member.
      ...(ending.outcome === 'completed' ? { fulfills: state.openingId } : {}),
      ...(ending.extra ?? {}),
    };
    let outcomeId: string;
    try {
      outcomeId = await this.write('KNOW', body, [state.lastOwnId]);
    } catch (error) {
      this.deps.log.log('warn', 'run outcome not written', { thread: this.thread, outcome: ending.outcome, error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
    await this.answerDispatch(state, ending, outcomeId);
  }

  /** A run that delivers a dispatch closes it on the dispatch thread: fulfilled when completed, cancelled otherwise. */
  private async answerDispatch(state: RunState, ending: Ending, outcomeId: string): Promise<void> {
    const dispatch = state.opening['dispatch'] as { id?: unknown; thread?: unknown } | undefined;
    if (typeof dispatch?.id !== 'string' || typeof dispatch.thread !== 'string') return;
    const done = ending.outcome === 'completed';
    const { stored } = await this.deps.writer.appendAs(SYSTEM, {
      thread: dispatch.thread,
      act: done ? 'KNOW' : 'DO',
      actor: state.actor,
      plugin: 'work',
      body: { kind: KIND_DISPATCH_ANSWER, [done ? 'fulfills' : 'cancels']: dispatch.id, run: this.thread, outcome: ending.outcome, summary: ending.summary ?? null },
      parents: [dispatch.id, outcomeId],
    });
    void stored;
  }

  /** Writes records of the run's own in one commit, as the member (appendSequenceAs). */
  private async writeSequence(records: readonly SequencedWrite[]): Promise<void> {
    const actor = this.state?.actor;
    if (!actor) throw new LoomError('INTERNAL', 'the run has no opening record');
    for (const { stored } of await this.deps.writer.appendSequenceAs(SYSTEM, { thread: this.thread, actor, plugin: 'work' }, records)) this.known(stored);
  }

  /** Writes one of the run's own records, as the member (the engine's own write, through the ingest gates). */
  private async write(act: string, body: JsonObject, parents: readonly string[]): Promise<string> {
    const actor = this.state?.actor;
    if (!actor) throw new LoomError('INTERNAL', 'the run has no opening record');
    const { stored } = await this.deps.writer.appendAs(SYSTEM, { thread: this.thread, act, actor, plugin: 'work', body, parents });
    this.known(stored);
    return stored.record.id;
  }

  /** A record this driver wrote, known at once without reading it back; a later read of the store skips it (one read already is known). */
  private known(stored: StoredRecord): void {
    if (stored.sequence <= this.storeRead || this.written.has(stored.record.id)) return;
    this.written.add(stored.record.id);
    this.add(stored);
  }
}
