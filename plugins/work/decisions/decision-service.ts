/**
 * The decisions a person sees and answers (spec §4.9): pending asks of runs
 * out of the member_runs index (its `asking` map: a run holds at most one
 * open ask), through the caller's read view, and the one check-then-write
 * of an answer, shared by POST /v1/decisions/{id}/decide and the run-events
 * door. Who may answer: whoever started the run, the member's owner, or an
 * operator; never the member itself. Everything is checked before the first
 * write (the choice rules of choice.ts, the blueprint install as the
 * approver) inside one critical section, so two answers to one ask never
 * both land and a refusal writes nothing.
 */
import { actingDid, SYSTEM, type Caller } from '../../../core/access/caller.js';
import { threadVisibility } from '../../../core/access/restriction.js';
import type { Clock } from '../../../core/engine/clock.js';
import type { LogCriticalSection } from '../../../core/engine/log-critical-section.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';
import {
  askOf,
  isOperator,
  KIND_DECISION_ANSWER,
  KIND_DECISION_REQUEST,
  type BlueprintService,
  type MaterializeRequest,
  type MemberService,
  type RunAsk,
  type RunEntry,
  type RunIndexState,
} from '../../members/index.js';
import { resolveChoice, termsOf, type DecideInput } from './choice.js';

export interface DecisionServiceDeps {
  readonly reader: Pick<RecordReader, 'get' | 'restriction'>;
  readonly writer: RecordWriter;
  readonly sections: LogCriticalSection;
  readonly members: Pick<MemberService, 'entry'>;
  readonly runs: () => RunIndexState;
  /** Null when the members plugin registers no blueprints (a proposal then cannot be approved). */
  readonly blueprints: BlueprintService | null;
  readonly clock: Clock;
}

/** A pending decision as GET /v1/decisions lists it. */
export interface Decision extends RunAsk {
  object: 'decision';
  state: 'pending';
  /** The thread the request is on (the run's). */
  thread: string;
  /** The run it holds (its thread). */
  run: string;
  /** The member that asks. */
  actor: string;
  actor_name: string | null;
  goal: string;
  started_by: string | null;
  sequence: number;
}

export interface DecisionQuery {
  readonly run?: string;
  readonly actor?: string;
  readonly thread?: string;
  readonly after?: string;
  readonly limit?: number;
}

export interface DecisionPage {
  object: 'list';
  data: Decision[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface DecisionOutcome {
  object: 'decision_outcome';
  /** The request answered. */
  decision: string;
  /** The DO that fulfils it. */
  answer: string;
  kind: 'tool_call' | 'ask' | 'blueprint_proposal';
  run: string;
  chosen: string[];
  approved: boolean | null;
  /** What the run resumes on. */
  words: string;
  /** A blueprint proposal: whether it was installed (approved); else null. */
  installed: boolean | null;
  /** A blueprint proposal approved: the plan applied (as the approver). */
  plan: { plan_hash: string; blueprint_record: string | null; members: JsonObject[] } | null;
}

export const DECISION_LIMIT_DEFAULT = 50;
export const DECISION_LIMIT_MAX = 500;

export class DecisionService {
  constructor(private readonly deps: DecisionServiceDeps) {}

  /** Pending decisions the caller may read (the run thread whole), oldest first, paged by the request's sequence. */
  list(caller: Caller, query: DecisionQuery): DecisionPage {
    const after = query.after === undefined ? null : Number(query.after);
    if (after !== null && (!Number.isSafeInteger(after) || after < 0)) throw new LoomError('INVALID_CURSOR', `after must be a next_cursor of this list, not ${JSON.stringify(query.after)}`);
    const limit = query.limit ?? DECISION_LIMIT_DEFAULT;
    const restriction = this.deps.reader.restriction(caller);
    const matching = [...this.deps.runs().asking.values()]
      .filter((entry) => entry.ask !== null && (after === null || entry.ask.sequence > after))
      .filter((entry) => (query.run === undefined || entry.thread === query.run) && (query.thread === undefined || entry.thread === query.thread) && (query.actor === undefined || entry.actor === query.actor))
      .filter((entry) => threadVisibility(restriction, entry.thread) === 'all')
      .sort((a, b) => a.ask!.sequence - b.ask!.sequence);
    const page = matching.slice(0, limit);
    const hasMore = matching.length > limit;
    return { object: 'list', data: page.map((entry) => this.decisionOf(entry)), has_more: hasMore, next_cursor: hasMore ? String(page.at(-1)!.ask!.sequence) : null };
  }

  /** Answers decision `id` (POST /v1/decisions/{id}/decide). */
  decide(caller: Caller, id: string, input: DecideInput): Promise<DecisionOutcome> {
    return this.deps.sections.run('work.decisions', async () => {
      const stored = await this.deps.reader.get(SYSTEM, id);
      const entry = stored?.record.body['kind'] === KIND_DECISION_REQUEST ? this.deps.runs().runs.get(stored.record.thread) : undefined;
      if (!stored || !entry || !this.visible(caller, entry)) throw new LoomError('NOT_FOUND', `no decision ${id} that you may read is on record`);
      return this.answer(caller, entry, stored.record.id, stored.record.body, input);
    });
  }

  /** Answers the open ask of run `thread` (POST /v1/runs/{thread}/events `{type: decision}`): the same rules, the same write. */
  decideOpen(caller: Caller, thread: string, input: DecideInput): Promise<DecisionOutcome> {
    return this.deps.sections.run('work.decisions', async () => {
      const entry = this.deps.runs().runs.get(thread);
      if (!entry || !this.visible(caller, entry)) throw new LoomError('NOT_FOUND', `no run ${thread} that you may read is on record`);
      if (!entry.ask) throw new LoomError('DECISION_CLOSED', `run ${thread} waits on no decision (state ${entry.outcome === null ? 'running' : 'ended'}); nothing written`);
      return this.answer(caller, entry, entry.ask.id, entry.ask.body, input);
    });
  }

  private async answer(caller: Caller, entry: RunEntry, id: string, body: JsonObject, input: DecideInput): Promise<DecisionOutcome> {
    const me = actingDid(caller);
    const owner = this.deps.members.entry(entry.actor)?.current.owner;
    if (me === entry.actor) throw new LoomError('FORBIDDEN', `${me} asked this; a member does not answer its own decision`);
    if (!isOperator(caller) && me !== entry.opening['started_by'] && me !== owner) {
      throw new LoomError('FORBIDDEN', `${me} may not answer decisions of run ${entry.thread}: only whoever started the run, the member's owner or an operator may`);
    }
    if (entry.ask?.id !== id) throw new LoomError('DECISION_CLOSED', `decision ${id} is no longer pending (answered, cancelled, or its run ended); nothing written`);
    const choice = resolveChoice(termsOf(body), input);
    const kind = body['about'] === 'ask' || body['about'] === 'blueprint_proposal' ? body['about'] : 'tool_call';
    let plan: DecisionOutcome['plan'] = null;
    if (kind === 'blueprint_proposal' && choice.approved === true) plan = await this.install(caller, entry, body);
    const { stored } = await this.deps.writer.appendAs(SYSTEM, {
      thread: entry.thread,
      act: 'DO',
      actor: me,
      plugin: 'work',
      body: {
        kind: KIND_DECISION_ANSWER,
        fulfills: id,
        run: entry.thread,
        decision: input.decision,
        chosen: [...choice.chosen],
        approved: choice.approved,
        words: choice.words,
        reason: input.reason ?? null,
        provided_value: input.provided_value ?? null,
        // The injected clock's time: the run's wall clock leaves out what it waited.
        answered_at_ms: this.deps.clock(),
        ...(plan === null ? {} : { installed: { plan_hash: plan.plan_hash, blueprint_record: plan.blueprint_record, members: plan.members } }),
      },
      parents: [id],
    });
    return {
      object: 'decision_outcome',
      decision: id,
      answer: stored.record.id,
      kind,
      run: entry.thread,
      chosen: [...choice.chosen],
      approved: choice.approved,
      words: choice.words,
      installed: kind === 'blueprint_proposal' ? plan !== null : null,
      plan,
    };
  }

  /** Installs a proposed blueprint as the approver, bounded by the approver's grant exactly as the install door is; the plan must be the one proposed. */
  private async install(caller: Caller, entry: RunEntry, body: JsonObject): Promise<NonNullable<DecisionOutcome['plan']>> {
    if (!this.deps.blueprints) throw new LoomError('NOT_FOUND', 'this instance installs no blueprints');
    const call = (body['call'] ?? {}) as { input?: JsonObject };
    const input = call.input ?? {};
    const request = { blueprint: input['blueprint'], ...(Array.isArray(input['extends']) ? { extends: input['extends'] } : {}), accept_plan: String(body['plan_hash'] ?? '') } as unknown as MaterializeRequest;
    const { answer } = await this.deps.blueprints.materialize(caller, request, entry.actor);
    return { plan_hash: answer.plan_hash, blueprint_record: answer.blueprint_record, members: answer.members.map((m) => ({ ...m }) as unknown as JsonObject) };
  }

  private visible(caller: Caller, entry: RunEntry): boolean {
    return threadVisibility(this.deps.reader.restriction(caller), entry.thread) === 'all';
  }

  private decisionOf(entry: RunEntry): Decision {
    const ask = askOf(entry.ask)!;
    return {
      object: 'decision',
      state: 'pending',
      ...ask,
      thread: entry.thread,
      run: entry.thread,
      actor: entry.actor,
      actor_name: this.deps.members.entry(entry.actor)?.current.display_name ?? null,
      goal: typeof entry.opening['goal'] === 'string' ? entry.opening['goal'] : '',
      started_by: typeof entry.opening['started_by'] === 'string' ? entry.opening['started_by'] : null,
      sequence: entry.ask!.sequence,
    };
  }
}
