/**
 * Materializing a blueprint (spec §4.7): admit it (a trusted signature, or
 * an operator where unsigned ones are allowed), resolve what it extends,
 * check every actor it declares under the caller's own bounds, plan, and
 * apply only the plan whose hash the caller sends back. Every refusal comes
 * before the first write, so a refused blueprint writes nothing; the writes
 * run in the registry's critical section against a plan made inside it, so
 * what is written is exactly the plan that was accepted.
 */
import { actingDid, credentialCaller, SYSTEM, type Caller } from '../../../core/access/caller.js';
import { token } from '../../../core/di/token.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { ThreadStateValue } from '../../../core/folds/thread-state.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { JsonObject, JsonValue } from '../../../core/records/json.js';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { isRecordId } from '../../../core/records/record-id.js';
import { TH_ACTOR_REGISTRY } from '../../../core/records/reserved-threads.js';
import { checkDefinition, type BoundsDeps } from '../definition-bounds.js';
import { KIND_PROMPT } from '../definition.js';
import { memberDid } from '../member-did.js';
import type { MemberService } from '../member-service.js';
import { KIND_BLUEPRINT, MAX_ACTORS, MAX_PROMPTS, PROMPT_NAME_PATTERN, type BlueprintActor, type BlueprintRecordBody, type MaterializeRequest } from './blueprint-format.js';
import { blueprintKey, type BlueprintRegistryState } from './blueprint-registry-fold.js';
import { actorFields, buildPlan, replaceIds, type EffectiveBlueprint, type Plan, type PlannedRecord } from './blueprint-plan.js';
import { sourceHash } from './blueprint-signature.js';
import { admission } from './blueprint-trust.js';

/** The effective actors and prompts of one blueprint, as canonical JSON. */
const MAX_EFFECTIVE_BYTES = 1024 * 1024;

export interface BlueprintServiceDeps extends BoundsDeps {
  readonly members: MemberService;
  readonly blueprints: OwnFold<BlueprintRegistryState>;
  readonly instanceDid: string;
}

/** The answer of every materialize: the plan, and whether it was applied. */
export interface BlueprintAnswer extends Plan {
  readonly object: 'blueprint_plan';
  readonly name: string;
  readonly applied: boolean;
  readonly admitted_as: EffectiveBlueprint['admitted_as'];
  readonly signer: string | null;
  readonly extends: readonly string[];
}

export class BlueprintService {
  constructor(private readonly deps: BlueprintServiceDeps) {}

  /**
   * The plan a member's blueprint proposal stands for (spec §4.9): the plan
   * its owner would apply now, admitted as a bounded caller would be (so only
   * a blueprint signed by a trusted key is proposed; the unsigned path stays
   * an operator's own act). Nothing is checked against a grant and nothing
   * written: the approver's materialize does that, as the approver, and its
   * plan must hash the same (else 409 PLAN_HASH_MISMATCH).
   */
  async proposalPlan(owner: string, proposer: string, request: Pick<MaterializeRequest, 'blueprint' | 'extends'>): Promise<BlueprintAnswer> {
    const caller = credentialCaller({ principal: owner, actors: [owner], actor: owner, scopes: ['records:read'] });
    const { admitted_as, signer } = admission(caller, request.blueprint, this.deps.config);
    const blueprint = await this.effective(caller, request as MaterializeRequest, { admitted_as, signer });
    const plan = await this.plan(caller, blueprint, proposer);
    return { object: 'blueprint_plan', name: blueprint.name, ...plan, applied: false, admitted_as, signer, extends: blueprint.extends };
  }

  /** 200 with the plan (dry run, or an apply that had nothing to write), 201 once applied; otherwise a refusal. `proposedBy`: the member whose approved proposal this installs. */
  async materialize(caller: Caller, request: MaterializeRequest, proposedBy?: string): Promise<{ status: 200 | 201; answer: BlueprintAnswer }> {
    const { admitted_as, signer } = admission(caller, request.blueprint, this.deps.config);
    const blueprint = await this.effective(caller, request, { admitted_as, signer });
    await this.checkBounds(caller, blueprint);
    const planned = await this.plan(caller, blueprint, proposedBy);
    const answer = (plan: Plan, applied: boolean): BlueprintAnswer => ({ object: 'blueprint_plan', name: blueprint.name, ...plan, applied, admitted_as, signer, extends: blueprint.extends });
    const mismatch = (plan: Plan) =>
      new LoomError('PLAN_HASH_MISMATCH', `accept_plan ${request.accept_plan} is not this blueprint's plan now (${plan.plan_hash}): review the plan again; nothing written`, { plan_hash: plan.plan_hash, plan: answer(plan, false) });
    if (request.accept_plan !== undefined && request.accept_plan !== planned.plan_hash) throw mismatch(planned);
    if (request.dry_run === true) return { status: 200, answer: answer(planned, false) };
    if (request.accept_plan === undefined) {
      throw new LoomError('PLAN_CONSENT_REQUIRED', `review the plan (${planned.records.length} records) and send accept_plan ${planned.plan_hash} to apply it; nothing written`, { plan_hash: planned.plan_hash, plan: answer(planned, false) });
    }
    const applied = await this.deps.members.inRegistrySection(async (write) => {
      // Planned again inside the section: the registry as the writes find it must be the plan accepted.
      const fresh = await this.plan(caller, blueprint, proposedBy);
      if (fresh.plan_hash !== request.accept_plan) throw mismatch(fresh);
      return apply(fresh, write);
    });
    return { status: applied.records.length > 0 ? 201 : 200, answer: answer(applied, true) };
  }

  /** The blueprint with what it extends merged in: later blueprints override earlier ones, by member and by prompt name. */
  private async effective(caller: Caller, request: MaterializeRequest, admitted: Pick<EffectiveBlueprint, 'admitted_as' | 'signer'>): Promise<EffectiveBlueprint> {
    const own = request.blueprint;
    const owner = actingDid(caller);
    for (const [index, actor] of own.actors.entries()) {
      if (actor.label.trim() === '') throw new LoomError('MISSING_FIELD', `actors[${index}].label is required and must not be blank`);
      if (actor.prompt !== undefined && actor.work_loop?.system_prompt_ref != null) {
        throw new LoomError('INVALID_BODY', `actors[${index}] (${actor.label}): prompt and work_loop.system_prompt_ref both name its words; give one`);
      }
    }
    const ownPrompts = own.prompts ?? {};
    for (const name of Object.keys(ownPrompts)) if (!PROMPT_NAME_PATTERN.test(name)) throw new LoomError('INVALID_BODY', `prompts: ${JSON.stringify(name)} is not a prompt name (letters, digits, . _ -)`);
    const seen = new Set<string>();
    for (const [index, actor] of own.actors.entries()) {
      const did = memberDid(owner, actor.label);
      if (seen.has(did)) throw new LoomError('INVALID_BODY', `actors[${index}]: label ${JSON.stringify(actor.label)} names a member another actor of this blueprint already declares`);
      seen.add(did);
    }

    const bases = await this.resolveExtends(caller, request.extends ?? []);
    const actors = new Map<string, BlueprintActor>();
    const prompts: Record<string, string> = {};
    for (const layer of [...bases.map((base) => ({ actors: base.body.actors, prompts: base.body.prompts })), { actors: own.actors, prompts: ownPrompts }]) {
      // An override keeps the inherited actor's place; a new actor goes last.
      for (const actor of layer.actors) actors.set(memberDid(owner, actor.label), actor);
      Object.assign(prompts, layer.prompts);
    }
    const effectiveActors = [...actors.values()];
    if (effectiveActors.length > MAX_ACTORS) throw new LoomError('INVALID_BODY', `with what it extends, the blueprint declares ${effectiveActors.length} actors; at most ${MAX_ACTORS}`);
    const used = new Set<string>();
    for (const actor of effectiveActors) {
      if (actor.prompt === undefined) continue;
      if (prompts[actor.prompt] === undefined) throw new LoomError('INVALID_BODY', `actor ${actor.label}: prompt ${JSON.stringify(actor.prompt)} is not in prompts`);
      used.add(actor.prompt);
    }
    for (const name of Object.keys(ownPrompts)) if (!used.has(name)) throw new LoomError('INVALID_BODY', `prompts.${name} is used by no actor`);
    if (used.size > MAX_PROMPTS) throw new LoomError('INVALID_BODY', `with what it extends, the blueprint uses ${used.size} prompts; at most ${MAX_PROMPTS}`);
    const effectivePrompts = Object.fromEntries([...used].sort().map((name) => [name, prompts[name]!]));
    // Its record holds all of it: no larger than a request body may be.
    const size = Buffer.byteLength(canonicalJson({ prompts: effectivePrompts, actors: effectiveActors }));
    if (size > MAX_EFFECTIVE_BYTES) throw new LoomError('INVALID_BODY', `with what it extends, the blueprint's actors and prompts take ${size} bytes; at most ${MAX_EFFECTIVE_BYTES}`);
    return {
      name: own.name,
      description: own.description ?? null,
      source_hash: sourceHash(own),
      ...admitted,
      extends: bases.map((base) => base.id),
      prompts: effectivePrompts,
      actors: effectiveActors,
    };
  }

  /**
   * `extends` entries: a record id names any blueprint record the caller may
   * read; a name, the caller's own latest materialization of that name.
   * Anything else is 404 NOT_FOUND.
   */
  private async resolveExtends(caller: Caller, names: readonly string[]): Promise<Array<{ id: string; body: BlueprintRecordBody }>> {
    const owner = actingDid(caller);
    const bases: Array<{ id: string; body: BlueprintRecordBody }> = [];
    for (const name of names) {
      const id = isRecordId(name) ? name : this.deps.blueprints.state().latest.get(blueprintKey(owner, name));
      const stored = id === undefined ? undefined : await this.deps.reader.get(isRecordId(name) ? caller : SYSTEM, id);
      if (!stored || stored.record.thread !== TH_ACTOR_REGISTRY || stored.record.body['kind'] !== KIND_BLUEPRINT) {
        throw new LoomError('NOT_FOUND', `extends: ${name} names no blueprint materialized here${isRecordId(name) ? ' that this credential can read' : ` by ${owner}`}`);
      }
      if (bases.some((base) => base.id === stored.record.id)) throw new LoomError('INVALID_BODY', `extends names blueprint ${stored.record.id} twice`);
      bases.push({ id: stored.record.id, body: stored.record.body as unknown as BlueprintRecordBody });
    }
    return bases;
  }

  /** Every actor under the caller's own bounds, before anything is written: one refusal refuses the whole blueprint. */
  private async checkBounds(caller: Caller, blueprint: EffectiveBlueprint): Promise<void> {
    const owner = actingDid(caller);
    for (const actor of blueprint.actors) {
      const fields = actorFields(actor);
      // Its words are checked as the record the plan writes; a reference of its own must resolve like define's.
      if (actor.prompt !== undefined) fields.work_loop.system_prompt_ref = null;
      try {
        await checkDefinition(caller, memberDid(owner, actor.label), fields, this.deps);
      } catch (error) {
        if (!(error instanceof LoomError)) throw error;
        throw new LoomError(error.code, `actor ${actor.label}: ${error.message}; the blueprint is refused whole, nothing written`, error.details ? { ...error.details } : undefined, { ...error.facts });
      }
    }
  }

  private async plan(caller: Caller, blueprint: EffectiveBlueprint, proposedBy?: string): Promise<Plan> {
    const owner = actingDid(caller);
    const clocks = (await this.deps.reader.threadFold<ThreadStateValue>(SYSTEM, 'thread_state', TH_ACTOR_REGISTRY)).value.actor_clocks;
    const previousId = this.deps.blueprints.state().latest.get(blueprintKey(owner, blueprint.name));
    const previous = previousId === undefined ? null : await this.deps.reader.get(SYSTEM, previousId);
    return buildPlan(blueprint, {
      instanceDid: this.deps.instanceDid,
      owner,
      highestClock: clocks[this.deps.instanceDid],
      entry: (did) => this.deps.members.entry(did),
      promptText: async (id) => {
        const stored = await this.deps.reader.get(SYSTEM, id);
        return stored?.record.body['kind'] === KIND_PROMPT && typeof stored.record.body['text'] === 'string' ? stored.record.body['text'] : null;
      },
      previous: previous ? { id: previous.record.id, body: previous.record.body } : null,
      ...(proposedBy === undefined ? {} : { proposedBy }),
    });
  }
}

/**
 * Writes the plan's records in order. Each is written as planned; should a
 * record land with another id than planned (its clock taken meanwhile), the
 * later records' references to it follow the id it got.
 */
async function apply(plan: Plan, write: (body: JsonObject, parents: readonly string[]) => Promise<PlannedRecord['record']>): Promise<Plan> {
  const moved = new Map<string, string>();
  const records: PlannedRecord[] = [];
  for (const { role, member, record } of plan.records) {
    const written = await write(replaceIds(record.body, moved), replaceIds(record.parents as JsonValue[], moved) as string[]);
    if (written.id !== record.id) moved.set(record.id, written.id);
    records.push({ role, member, record: written });
  }
  const follow = (id: string) => moved.get(id) ?? id;
  return {
    plan_hash: plan.plan_hash,
    records,
    members: plan.members.map((m) => ({ ...m, definition: follow(m.definition) })),
    blueprint_record: plan.blueprint_record === null ? null : follow(plan.blueprint_record),
  };
}

export const BlueprintServiceToken = token<BlueprintService>('members.BlueprintService');
