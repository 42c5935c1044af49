/**
 * The start doors' one check-then-write (spec §4.8, §4.15): who may run as
 * a member, the model and its provider, the prompt, the ceilings (tier,
 * member, request: only ever narrower), the daily caps and the admission
 * ceiling, then the run's opening record. Admission and the daily count are
 * checked and the opening written inside one critical section over the log,
 * so concurrent starts never pass the same last slot. The engine drives the
 * run once its opening is on the log.
 */
import { randomUUID } from 'node:crypto';
import { actingDid, SYSTEM, type Caller } from '../../../core/access/caller.js';
import { scopeWithin } from '../../../core/access/scopes.js';
import type { Config } from '../../../core/folds/config/config-topic.js';
import type { LogCriticalSection } from '../../../core/engine/log-critical-section.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';
import { isThreadId, taskThreadId } from '../../../core/records/thread-id.js';
import {
  KIND_RUN,
  tierCaps,
  checkDefinition,
  isOperator,
  definitionFields,
  promptRecordId,
  tierOf,
  type BoundsDeps,
  type MemberService,
  type ModelCatalog,
  type PricedModel,
  type Tier,
  type ToolDescriptor,
  type ToolRegistry,
  type WorkLoop,
} from '../../members/index.js';
import type { ModelProviders } from '../providers/index.js';
import { effectiveCeilings, type RunCeilings } from './ceilings.js';
import { grantBody, memberGrant, type RunGrant } from './run-grant.js';

export interface UsageToday {
  readonly loop_count: number;
  readonly cost_usd: number;
}

export interface RunStarterDeps {
  readonly members: MemberService;
  readonly tools: ToolRegistry;
  readonly models: ModelCatalog;
  readonly config: Config;
  readonly bounds: BoundsDeps;
  readonly providers: () => ModelProviders;
  readonly reader: RecordReader;
  readonly writer: RecordWriter;
  readonly sections: LogCriticalSection;
  /** Runs without an outcome on the whole log (every server's), or of one actor. */
  readonly openRunCount: (actor?: string) => number;
  /** Runs the actor started today (the UTC day of the server's clock) and their spend. */
  readonly usageToday: (actor: string) => UsageToday;
  readonly maxConcurrentRuns: number;
}

/** POST /v1/actors/{did}/runs (spec §4.15). */
export interface MemberRunRequest {
  goal: string;
  source_thread?: string;
  repo?: string;
  consumes?: string[];
  promises?: string[];
  contract?: string;
  verdict?: string;
  revert?: string;
  budget_usd?: number;
  max_turns?: number;
  verification?: string;
  model_override?: string;
  definition?: Partial<WorkLoop>;
  tags?: string[];
  /** Not on the door: a dispatch this run delivers (the dispatch adapter), whose budget's duration is the wall clock. */
  dispatch?: { readonly id: string; readonly thread: string };
  wall_clock_secs?: number;
  /** Not on the door: the run that fans out to this one (fan-out-tools.ts). */
  parentRun?: { readonly thread: string; readonly root: string; readonly depth: number; readonly call: string };
}

/** POST /v1/work/loop and its preview (spec §4.8): a person's own loop. */
export interface WorkLoopRequest {
  goal: string;
  max_turns?: number;
  token_budget?: number;
  wall_clock_secs?: number;
  workspace?: string;
  model?: string;
  tools?: string[];
}

export interface PlannedRun {
  readonly thread: string;
  readonly actor: string;
  readonly tier: Tier;
  readonly model: PricedModel;
  readonly tools: string[];
  readonly forbidden: string[];
  readonly ceilings: RunCeilings;
  readonly opening: JsonObject;
  readonly usage: UsageToday;
  /** The opening's parents (a dispatched run cites its dispatch record). */
  readonly parents?: readonly string[];
}

export interface WorkLoopPreview {
  object: 'work_loop_preview';
  tier: string;
  caps: { max_turns: number | null; wall_clock_secs: number | null; token_budget: number | null; daily_cost_cap_usd: number | null; daily_loop_cap: number | null };
  effective_config: { max_turns: number | null; token_budget: number | null; wall_clock_secs: number | null; forbidden_tools: string[] };
  usage_today: UsageToday;
  model: string | null;
  estimated_cost_usd: number | null;
  tool_grant: { default: string[]; requestable: string[] };
  would_be_denied: boolean;
  denial_reason: 'WORK_DAILY_CAP_EXCEEDED' | 'WORK_DAILY_COUNT_EXCEEDED' | null;
}

const TIER_NAMES: Record<Tier, string> = { trial: 'Trial', paid: 'Paid', team: 'Team', operator: 'Operator' };

export const tierName = (tier: Tier): string => TIER_NAMES[tier];

export class RunStarter {
  constructor(private readonly deps: RunStarterDeps) {}

  /** Tools whose scope is `admin` are for operators' own loops only: no tier below Operator is given them. */
  forbiddenTools(tier: Tier): string[] {
    return tier === 'operator' ? [] : this.deps.tools.list().filter((tool) => tool.scope === 'admin').map((tool) => tool.name);
  }

  private modelFor(id: string | null): PricedModel {
    if (id === null) throw new LoomError('WORK_NO_PROVIDER', 'the member has no model; patch one in (PATCH /v1/actors/{did}/definition)');
    const model = this.deps.models.get(id);
    if (!model) throw new LoomError('MODEL_UNKNOWN', `model ${id} is not in this instance's priced catalog`);
    if (!this.deps.providers().get(model.provider)) {
      throw new LoomError('WORK_NO_PROVIDER', `no ${model.provider} provider is configured on this instance (set ${model.provider === 'anthropic' ? 'ANTHROPIC_API_KEY' : model.provider === 'openai' ? 'OPENAI_API_KEY or OPENAI_BASE_URL' : 'OLLAMA_HOST'}, or the work_providers topic)`);
    }
    return model;
  }

  /** The default model of a person's own loop: the first catalog model whose provider is configured. */
  private defaultModel(): PricedModel {
    const configured = new Set(this.deps.providers().names());
    const model = this.deps.models.list().find((candidate) => configured.has(candidate.provider));
    if (!model) throw new LoomError('WORK_NO_PROVIDER', 'no model provider is configured on this instance (set ANTHROPIC_API_KEY, OPENAI_API_KEY / OPENAI_BASE_URL or OLLAMA_HOST)');
    return model;
  }

  private async promptOf(ref: string | null): Promise<string | null> {
    if (ref === null) return null;
    const id = promptRecordId(ref);
    if (id === null || !(await this.deps.reader.get(SYSTEM, id))) throw new LoomError('WORK_PROMPT_UNRESOLVED', `the prompt ${ref} does not resolve to a record here`);
    return id;
  }

  private dailyRefusal(ceilings: RunCeilings, usage: UsageToday): 'WORK_DAILY_CAP_EXCEEDED' | 'WORK_DAILY_COUNT_EXCEEDED' | null {
    if (ceilings.daily_loop_cap !== null && usage.loop_count >= ceilings.daily_loop_cap) return 'WORK_DAILY_COUNT_EXCEEDED';
    if (ceilings.daily_cost_cap_usd !== null && usage.cost_usd >= ceilings.daily_cost_cap_usd) return 'WORK_DAILY_CAP_EXCEEDED';
    return null;
  }

  /** Plans a member's run: every refusal of §4.15 before anything is written. */
  async planMemberRun(caller: Caller, did: string, request: MemberRunRequest): Promise<PlannedRun> {
    const entry = this.deps.members.entry(did);
    const me = actingDid(caller);
    if (!entry) {
      if (isOperator(caller)) throw new LoomError('ACTOR_UNKNOWN', `no member ${did} is defined here`);
      throw new LoomError('RUN_ACTOR_NOT_COVERED', `${me} may not run as ${did}: only the member itself, whoever defined it, or an operator may`);
    }
    const body = entry.current;
    if (body.retired) throw new LoomError('RUN_ACTOR_NOT_COVERED', `${did} is retired; define it again to run it`);
    if (me !== did && body.owner !== me && !isOperator(caller)) throw new LoomError('RUN_ACTOR_NOT_COVERED', `${me} may not run as ${did}: only the member itself, whoever defined it (${body.owner}), or an operator may`);
    let loop: WorkLoop = body.work_loop;
    const trial = request.definition !== undefined;
    if (trial) {
      const fields = definitionFields({ label: body.label, work_loop: { ...request.definition } });
      fields.write_admit = body.write_admit;
      fields.declares_kinds = body.declares_kinds;
      try {
        await checkDefinition(caller, did, fields, this.deps.bounds);
      } catch (error) {
        if (error instanceof LoomError) throw new LoomError(error.code, `${error.message}. No trial ran.`);
        throw error;
      }
      loop = fields.work_loop;
    }
    if (request.repo !== undefined) throw new LoomError('REPO_UNKNOWN', `repository ${request.repo} is not declared on this instance (no repositories are declared)`);
    if (request.source_thread !== undefined && !isThreadId(request.source_thread)) throw new LoomError('INVALID_BODY', `source_thread: ${JSON.stringify(request.source_thread)} is not a thread id`);
    if (body.mechanism !== 'llm') throw new LoomError('INVALID_DEFINITION', `${did} is a ${body.mechanism} member: only an llm member runs on a model`);
    if ((request.model_override ?? loop.model) === null) throw new LoomError('INVALID_DEFINITION', `${did} has no model to run on; patch one in (PATCH /v1/actors/{did}/definition) or pass model_override`);
    const prompt = await this.promptOf(loop.system_prompt_ref);
    const model = this.modelFor(request.model_override ?? loop.model);
    const tier: Tier = tierOf(this.deps.config, did);
    const forbidden = this.forbiddenTools(tier);
    const tools = loop.tools.filter((name) => this.deps.tools.get(name) && !forbidden.includes(name));
    const ceilings = effectiveCeilings(
      tierCaps(this.deps.config, tier),
      { max_turns: loop.max_turns, budget_usd: loop.budget_usd, daily_cost_cap_usd: loop.daily_cost_cap_usd, daily_loop_cap: loop.daily_loop_cap },
      { max_turns: request.max_turns ?? null, budget_usd: request.budget_usd ?? null, wall_clock_secs: request.wall_clock_secs ?? null },
    );
    const thread = taskThreadId(`run ${did}`, randomUUID());
    const descriptors = tools.map((name) => this.deps.tools.get(name)!);
    const grant = memberGrant(did, descriptors, body.write_admit, loop.reads, thread);
    const opening = this.opening({
      thread,
      definition: entry.currentId,
      prompt,
      goal: request.goal,
      tags: request.tags ?? [],
      sourceThread: request.source_thread ?? null,
      domain: body.trust_domain,
      model,
      tools,
      narrowed: loop.tools.filter((name) => !tools.includes(name)),
      ceilings,
      declaresKinds: body.declares_kinds,
      grant,
      startedBy: me,
      extra: {
        // The tier it starts at: decisions read that tier's approve_destructive (live) for its destructive calls.
        tier,
        // Tools whose calls wait on a person (the definition's work_loop.approval_required), copied so the run's own records say it.
        ...(loop.approval_required !== undefined && loop.approval_required.length > 0 ? { approval_required: [...loop.approval_required] } : {}),
        trial,
        ...(trial ? { trial_definition: loop as unknown as JsonObject } : {}),
        consumes: request.consumes ?? [],
        promises: request.promises ?? [],
        contract: request.contract ?? null,
        verdict: request.verdict ?? null,
        revert: request.revert ?? null,
        verification: request.verification ?? loop.verification,
        reads: loop.reads,
        ...(request.dispatch ? { dispatch: { id: request.dispatch.id, thread: request.dispatch.thread } } : {}),
        ...(request.parentRun ? { parent_run: { ...request.parentRun } } : {}),
      },
    });
    return { thread, actor: did, tier, model, tools, forbidden, ceilings, opening, usage: this.deps.usageToday(did), ...(request.dispatch ? { parents: [request.dispatch.id] } : {}) };
  }

  /** The tools a person's own loop gets by default (read-only ones and write_record) and may ask for (all they reach below the tier's forbidden set). */
  toolGrant(caller: Caller, tier: Tier): { default: string[]; requestable: string[] } {
    const forbidden = this.forbiddenTools(tier);
    const reachable = this.deps.tools.list().filter((tool) => !forbidden.includes(tool.name) && (isOperator(caller) || scopeWithin(tool.scope, caller.scopes)));
    return { default: reachable.filter((tool) => tool.readOnly || tool.name === 'write_record').map((tool) => tool.name), requestable: reachable.map((tool) => tool.name) };
  }

  private selfTier(caller: Caller): Tier {
    return isOperator(caller) ? 'operator' : tierOf(this.deps.config, actingDid(caller));
  }

  /** Plans a person's own loop (POST /v1/work/loop): they are the actor, with their own scopes. */
  planWorkLoop(caller: Caller, request: WorkLoopRequest): PlannedRun {
    const me = actingDid(caller);
    const tier = this.selfTier(caller);
    const grantable = this.toolGrant(caller, tier);
    for (const name of request.tools ?? []) if (!grantable.requestable.includes(name)) throw new LoomError('TOOL_NOT_IN_REACH', `tool ${name} is not one this credential may give its loop (${grantable.requestable.join(', ') || 'none'})`);
    const tools = request.tools ?? grantable.default;
    const model = request.model !== undefined ? this.modelFor(request.model) : this.defaultModel();
    const ceilings = effectiveCeilings(tierCaps(this.deps.config, tier), { max_turns: request.max_turns ?? null, token_budget: request.token_budget ?? null, wall_clock_secs: request.wall_clock_secs ?? null });
    const thread = taskThreadId(`loop ${me}`, randomUUID());
    const grant: RunGrant = { principal: caller.principal ?? me, actor: me, scopes: isOperator(caller) ? ['admin'] : [...caller.scopes] };
    const opening = this.opening({
      thread,
      definition: null,
      prompt: null,
      goal: request.goal,
      tags: [],
      sourceThread: null,
      domain: null,
      model,
      tools,
      narrowed: [],
      ceilings,
      declaresKinds: [],
      grant,
      startedBy: me,
      extra: { tier, workspace: request.workspace ?? null, ...(request.workspace ? { namespace: request.workspace } : {}) },
    });
    return { thread, actor: me, tier, model, tools, forbidden: this.forbiddenTools(tier), ceilings, opening, usage: this.deps.usageToday(me) };
  }

  preview(caller: Caller, request: WorkLoopRequest): WorkLoopPreview {
    const tier = this.selfTier(caller);
    const caps = tierCaps(this.deps.config, tier);
    const usage = this.deps.usageToday(actingDid(caller));
    const ceilings = effectiveCeilings(caps, { max_turns: request.max_turns ?? null, token_budget: request.token_budget ?? null, wall_clock_secs: request.wall_clock_secs ?? null });
    let model: PricedModel | null = null;
    try {
      model = request.model !== undefined ? this.modelFor(request.model) : this.defaultModel();
    } catch {
      model = null;
    }
    const denial = this.dailyRefusal(ceilings, usage);
    return {
      object: 'work_loop_preview',
      tier: tierName(tier),
      caps: { max_turns: caps.max_turns, wall_clock_secs: caps.wall_clock_secs, token_budget: caps.token_budget, daily_cost_cap_usd: caps.daily_cost_cap_usd, daily_loop_cap: caps.daily_loop_cap },
      effective_config: { max_turns: ceilings.max_turns, token_budget: ceilings.token_budget, wall_clock_secs: ceilings.wall_clock_secs, forbidden_tools: this.forbiddenTools(tier) },
      usage_today: usage,
      model: model?.id ?? null,
      // The most the loop may spend: its whole token budget at the model's output price, capped by the tier's default budget.
      estimated_cost_usd: model === null ? null : estimate(model, ceilings),
      tool_grant: this.toolGrant(caller, tier),
      would_be_denied: denial !== null,
      denial_reason: denial,
    };
  }

  /** Writes the opening of a planned run after the admission and daily checks, all inside one critical section. */
  async start(plan: PlannedRun): Promise<string> {
    return this.deps.sections.run('work.admission', async () => {
      const running = this.deps.openRunCount();
      if (running >= this.deps.maxConcurrentRuns) throw new LoomError('ADMISSION_CEILING', `${running} runs are running and this instance admits at most ${this.deps.maxConcurrentRuns} at once; try again when one ends`);
      const concurrency = tierCaps(this.deps.config, plan.tier).concurrency;
      const mine = concurrency === null ? 0 : this.deps.openRunCount(plan.actor);
      if (concurrency !== null && mine >= concurrency) throw new LoomError('ADMISSION_CEILING', `${plan.actor} has ${mine} runs running and its ${tierName(plan.tier)} tier runs at most ${concurrency} at once; try again when one ends`);
      const usage = this.deps.usageToday(plan.actor);
      const refusal = this.dailyRefusal(plan.ceilings, usage);
      if (refusal === 'WORK_DAILY_COUNT_EXCEEDED') throw new LoomError(refusal, `${plan.actor} has started ${usage.loop_count} runs today, its daily cap is ${plan.ceilings.daily_loop_cap}`);
      if (refusal === 'WORK_DAILY_CAP_EXCEEDED') throw new LoomError(refusal, `${plan.actor} has spent ${usage.cost_usd.toFixed(4)} USD today, its daily cap is ${plan.ceilings.daily_cost_cap_usd} USD`);
      // An INTEND assigned to the actor: its completed outcome is the claim that fulfils it, so a verdict on either is trust evidence in the run's domain.
      const { stored } = await this.deps.writer.appendAs(SYSTEM, { thread: plan.thread, act: 'INTEND', actor: plan.actor, plugin: 'work', body: plan.opening, parents: plan.parents ?? [] });
      return stored.record.id;
    });
  }

  private opening(fields: {
    thread: string;
    definition: string | null;
    prompt: string | null;
    goal: string;
    tags: string[];
    sourceThread: string | null;
    domain: string | null;
    model: PricedModel;
    tools: string[];
    narrowed: string[];
    ceilings: RunCeilings;
    declaresKinds: string[];
    grant: RunGrant;
    startedBy: string;
    extra: JsonObject;
  }): JsonObject {
    return {
      kind: KIND_RUN,
      schema_version: '1.0.0',
      assigned_to: fields.grant.actor,
      definition: fields.definition,
      prompt: fields.prompt,
      frame: null,
      goal: fields.goal,
      tags: fields.tags,
      source_thread: fields.sourceThread,
      domain: fields.domain,
      model: fields.model.id,
      provider: fields.model.provider,
      // The price every turn's cost_usd is computed at (a turn names its own if the catalog changes mid-run).
      price: { input_usd_per_mtok: fields.model.input_usd_per_mtok, output_usd_per_mtok: fields.model.output_usd_per_mtok },
      tools: fields.tools,
      narrowed: fields.narrowed,
      transport: 'in_process',
      max_turns: fields.ceilings.max_turns,
      ceiling_usd: fields.ceilings.budget_usd,
      ceilings: { ...fields.ceilings },
      declares_kinds: fields.declaresKinds,
      grant: grantBody(fields.grant),
      started_by: fields.startedBy,
      ...fields.extra,
    };
  }
}

function estimate(model: PricedModel, ceilings: RunCeilings): number | null {
  if (ceilings.token_budget === null) return ceilings.budget_usd;
  const top = (ceilings.token_budget * model.output_usd_per_mtok) / 1_000_000;
  return ceilings.budget_usd === null ? top : Math.min(top, ceilings.budget_usd);
}

export type { ToolDescriptor };
