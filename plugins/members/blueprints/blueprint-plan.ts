/**
 * A blueprint's plan: every record materializing it would write, in the
 * order it writes them (the prompt records, then each definition version in
 * actor order, then the blueprint record), each with the id it gets when
 * nothing else writes to th_actor_registry first. Apply writes exactly
 * these records; the plan only reads.
 *
 * Idempotent: a member whose definition in force already says what its
 * actor declares is `unchanged` (no version written), prompt words equal to
 * the member's current ones reuse that record, and a blueprint whose last
 * materialization by the same owner says the same writes nothing at all.
 *
 * plan_hash = SHA-256 of the canonical JSON of
 *   {plan_version: 1, blueprint: <name>, source_hash,
 *    records: [{role, thread, act, actor, parents, body}, ...]}
 * where the id of a record in the plan, wherever it appears (a prompt
 * reference, a parent, the blueprint record's member list), is written
 * `plan:<index>`. So the hash pins what is written and what it replaces (a
 * parent outside the plan is a real id: a member changed since the review
 * changes the hash) but not the registry's clocks, which any unrelated
 * member define moves.
 */
import { canonicalJson } from '../../../core/records/canonical-json.js';
import type { JsonObject, JsonValue } from '../../../core/records/json.js';
import { computeRecordId } from '../../../core/records/record-id.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { TH_ACTOR_REGISTRY } from '../../../core/records/reserved-threads.js';
import { nobleSha256Hex } from '../../../core/records/sha256.js';
import { definitionFields, fieldsOf, promptRecordId, type DefinitionFields } from '../definition.js';
import { memberDid } from '../member-did.js';
import type { MemberEntry } from '../member-registry-fold.js';
import { promptBody, REGISTRY_ACT, versionBody } from '../member-service.js';
import { BLUEPRINT_VERSION, KIND_BLUEPRINT, type Admission, type BlueprintActor, type BlueprintRecordBody } from './blueprint-format.js';

export const PLAN_VERSION = 1;

export type PlannedRole = 'prompt' | 'definition' | 'blueprint';

export interface PlannedRecord {
  readonly role: PlannedRole;
  /** The member a prompt or definition is for; null for the blueprint record. */
  readonly member: string | null;
  readonly record: LoomRecord;
}

export interface PlannedMember {
  readonly label: string;
  readonly actor_did: string;
  readonly change: 'created' | 'updated' | 'unchanged';
  /** The definition in force once applied: the version the plan writes, or the current one when unchanged. */
  readonly definition: string;
}

export interface Plan {
  readonly plan_hash: string;
  readonly records: PlannedRecord[];
  readonly members: PlannedMember[];
  /** The blueprint record the plan writes; null when the blueprint is already materialized as it is. */
  readonly blueprint_record: string | null;
}

/** An effective blueprint: what is materialized, inherited actors and prompts included. */
export interface EffectiveBlueprint {
  readonly name: string;
  readonly description: string | null;
  readonly source_hash: string;
  readonly signer: string | null;
  readonly admitted_as: Admission;
  /** Blueprint record ids extended, in order. */
  readonly extends: readonly string[];
  readonly prompts: Readonly<Record<string, string>>;
  readonly actors: readonly BlueprintActor[];
}

export interface PlanContext {
  /** The DID the instance writes registry records as. */
  readonly instanceDid: string;
  /** Who materializes: the owner of every member and the `by` of every version. */
  readonly owner: string;
  /** The instance's highest clock on th_actor_registry (undefined: it has written nothing there). */
  readonly highestClock: number | undefined;
  readonly entry: (did: string) => MemberEntry | null;
  /** The words of a prompt record, or null when it is not one. */
  readonly promptText: (id: string) => Promise<string | null>;
  /** The owner's last materialization of this blueprint name. */
  readonly previous: { readonly id: string; readonly body: JsonObject } | null;
  /** The member whose proposal (a decision) this plan installs: named on every version and the blueprint record, so it never judges runs under them (VERDICT_SELF_JUDGMENT). */
  readonly proposedBy?: string;
}

/** The define fields an actor declares (its `prompt` resolved separately). */
export function actorFields(actor: BlueprintActor): DefinitionFields {
  const { prompt: _prompt, ...request } = actor;
  return definitionFields(request);
}

export async function buildPlan(blueprint: EffectiveBlueprint, context: PlanContext): Promise<Plan> {
  const records: PlannedRecord[] = [];
  let clock = context.highestClock ?? -1;
  const append = (role: PlannedRole, member: string | null, body: JsonObject, parents: readonly string[]): string => {
    const fields = { thread: TH_ACTOR_REGISTRY, actor: context.instanceDid, act: REGISTRY_ACT, body, clock: ++clock, data_type: 'SCALAR', parents: [...new Set(parents)].sort() } as const;
    const id = computeRecordId(fields);
    records.push({ role, member, record: { id, ...fields, parents: fields.parents, judged_by: null } });
    return id;
  };

  const members = blueprint.actors.map((actor) => ({ actor, did: memberDid(context.owner, actor.label), fields: actorFields(actor) }));
  // Prompt words first, so each definition can point at its record.
  for (const { actor, did, fields } of members) {
    if (actor.prompt === undefined) continue;
    const text = blueprint.prompts[actor.prompt]!;
    const current = context.entry(did)?.current.work_loop.system_prompt_ref ?? null;
    const currentId = promptRecordId(current);
    if (currentId !== null && (await context.promptText(currentId)) === text) fields.work_loop.system_prompt_ref = current;
    else fields.work_loop.system_prompt_ref = `record:${append('prompt', did, promptBody(did, text), currentId ? [currentId] : [])}`;
  }

  const planned: PlannedMember[] = [];
  for (const { actor, did, fields } of members) {
    const previous = context.entry(did);
    if (previous && !previous.current.retired && canonicalJson(fieldsOf(previous.current)) === canonicalJson(fields)) {
      planned.push({ label: actor.label.trim(), actor_did: did, change: 'unchanged', definition: previous.currentId });
      continue;
    }
    const body = { ...versionBody(context.owner, previous, { label: actor.label.trim(), owner: context.owner, did }, fields, 'defined', null), ...(context.proposedBy ? { proposed_by: context.proposedBy } : {}) };
    const id = append('definition', did, body as unknown as JsonObject, previous ? [previous.currentId] : []);
    planned.push({ label: actor.label.trim(), actor_did: did, change: previous ? 'updated' : 'created', definition: id });
  }

  const recordBody: BlueprintRecordBody = {
    kind: KIND_BLUEPRINT,
    blueprint_version: BLUEPRINT_VERSION,
    name: blueprint.name,
    description: blueprint.description,
    owner: context.owner,
    source_hash: blueprint.source_hash,
    signer: blueprint.signer,
    admitted_as: blueprint.admitted_as,
    extends: [...blueprint.extends],
    prompts: { ...blueprint.prompts },
    actors: [...blueprint.actors],
    members: planned.map(({ label, actor_did, definition }) => ({ label, actor_did, definition })),
    ...(context.proposedBy ? { proposed_by: context.proposedBy } : {}),
  };
  const body = recordBody as unknown as JsonObject;
  let blueprintRecord: string | null = null;
  if (context.previous === null || canonicalJson(context.previous.body) !== canonicalJson(body)) {
    blueprintRecord = append('blueprint', null, body, [...(context.previous ? [context.previous.id] : []), ...blueprint.extends]);
  }
  return { plan_hash: planHash(blueprint.name, blueprint.source_hash, records), records, members: planned, blueprint_record: blueprintRecord };
}

/** See the file comment: the hash of what is written, in-plan ids written `plan:<index>`. */
export function planHash(name: string, sourceHash: string, records: readonly PlannedRecord[]): string {
  const placeholders = new Map(records.map(({ record }, index) => [record.id, `plan:${index}`]));
  const hashed = records.map(({ role, record }) => ({ role, thread: record.thread, act: record.act, actor: record.actor, parents: record.parents, body: record.body }));
  return nobleSha256Hex(canonicalJson({ plan_version: PLAN_VERSION, blueprint: name, source_hash: sourceHash, records: replaceIds(hashed as unknown as JsonValue, placeholders) }));
}

const ID_IN_TEXT = /[0-9a-f]{64}/g;

/** `value` with every id `replacements` names replaced, wherever it appears in a string. */
export function replaceIds<T extends JsonValue>(value: T, replacements: ReadonlyMap<string, string>): T {
  if (replacements.size === 0) return value;
  const walk = (node: JsonValue): JsonValue => {
    if (typeof node === 'string') return node.replace(ID_IN_TEXT, (id) => replacements.get(id) ?? id);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, member]) => [key, walk(member)]));
    return node;
  };
  return walk(value) as T;
}
