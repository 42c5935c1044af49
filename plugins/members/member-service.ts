/**
 * The doors over member actors (spec §4.15), each a check of the whole
 * request before one write: define, patch, revert, retire, and history.
 * Every version is a new definition record on th_actor_registry, written
 * by the instance (so a credential bounded to its own threads can still
 * define a member) with the caller's DID as `by`, parented to the version
 * it replaces. Each door checks and writes inside one critical section over
 * the registry (LogCriticalSection, across the servers of a shared log), so
 * no two versions share a parent and no change is lost to a concurrent one.
 */
import { actingDid, SYSTEM, type Caller } from '../../core/access/caller.js';
import { token } from '../../core/di/token.js';
import type { LogCriticalSection } from '../../core/engine/log-critical-section.js';
import type { RecordWriter } from '../../core/engine/record-writer.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { OwnFold } from '../../core/plugin/own-fold.js';
import type { JsonObject } from '../../core/records/json.js';
import type { LoomRecord } from '../../core/records/record.js';
import { TH_ACTOR_REGISTRY } from '../../core/records/reserved-threads.js';
import { checkDefinition, type BoundsDeps } from './definition-bounds.js';
import { fieldsOf, KIND_DEFINITION, KIND_PROMPT, type Change, type DefinitionBody, type DefinitionFields } from './definition.js';
import { memberDid } from './member-did.js';
import { isOperator } from './memory/memory-access.js';
import type { MemberEntry, MemberRegistryState } from './member-registry-fold.js';
import { memberRow, type MemberRow } from './member-row.js';

const REGISTRY_SECTION = 'members.registry';

export interface MemberServiceDeps extends BoundsDeps {
  readonly writer: RecordWriter;
  readonly registry: OwnFold<MemberRegistryState>;
  readonly sections: LogCriticalSection;
  /** The DID the instance writes registry records as. */
  readonly instanceDid: string;
}

/** A patch (spec §4.15): every field optional; `prompt` is new words, `tools` a change to the set. */
export interface MemberPatch {
  display_name?: string;
  model?: string;
  prompt?: string;
  tools?: { add?: string[]; remove?: string[] };
  budget_usd?: number;
  max_turns?: number;
}

export interface HistoryVersion {
  definition_record_id: string;
  version: number;
  at: string;
  by: string;
  change: Change;
  changed: string[];
  display_name: string;
  model: string | null;
  prompt_record_id: string | null;
  tools: string[];
  budget_usd: number | null;
  max_turns: number | null;
  daily_cost_cap_usd: number | null;
  daily_loop_cap: number | null;
  retired: boolean;
}

export class MemberService {
  constructor(private readonly deps: MemberServiceDeps) {}

  /** The member, or null. */
  entry(did: string): MemberEntry | null {
    return this.deps.registry.state().members.get(did) ?? null;
  }

  private sorted: { watermark: number; entries: MemberEntry[] } | null = null;

  /** Every member, in DID order (sorted once per registry change, not per read). */
  all(): MemberEntry[] {
    const { state, watermark } = this.deps.registry.snapshot();
    if (this.sorted?.watermark !== watermark) this.sorted = { watermark, entries: [...state.members.values()].sort((a, b) => (a.did < b.did ? -1 : 1)) };
    return this.sorted.entries;
  }

  ownedBy(owner: string): MemberEntry[] {
    const state = this.deps.registry.state();
    return [...(state.byOwner.get(owner) ?? [])].map((did) => state.members.get(did)!).sort((a, b) => (a.did < b.did ? -1 : 1));
  }

  async define(caller: Caller, label: string, fields: DefinitionFields): Promise<{ did: string; definition: string; created: boolean }> {
    const owner = actingDid(caller);
    const did = memberDid(owner, label);
    return this.deps.sections.run(REGISTRY_SECTION, async () => {
      await checkDefinition(caller, did, fields, this.deps);
      const previous = this.entry(did);
      const id = await this.writeVersion(caller, previous, { label: label.trim(), owner, did }, fields, 'defined', null);
      return { did, definition: id, created: previous === null };
    });
  }

  /** Checked and written inside the registry's critical section, so a concurrent patch is never overwritten (no lost update). */
  patch(caller: Caller, did: string, patch: MemberPatch): Promise<{ row: MemberRow; promptRecordId: string | null }> {
    return this.deps.sections.run(REGISTRY_SECTION, async () => {
      const entry = this.ownedEntry(caller, did);
      const current = fieldsOf(entry.current);
      const next: DefinitionFields = { ...current, work_loop: { ...current.work_loop } };
      if (patch.display_name !== undefined) next.display_name = patch.display_name;
      if (patch.model !== undefined) next.work_loop.model = patch.model;
      if (patch.budget_usd !== undefined) next.work_loop.budget_usd = patch.budget_usd;
      if (patch.max_turns !== undefined) next.work_loop.max_turns = patch.max_turns;
      if (patch.tools) {
        for (const name of patch.tools.add ?? []) if (!this.deps.tools.get(name)) throw new LoomError('TOOL_NOT_DECLARED', `tool ${name} is not a tool this instance has`);
        const tools = new Set(next.work_loop.tools);
        for (const name of patch.tools.add ?? []) tools.add(name);
        for (const name of patch.tools.remove ?? []) tools.delete(name);
        next.work_loop.tools = [...tools].sort();
      }
      if (patch.prompt === undefined && sameFields(next, current)) throw new LoomError('NOTHING_TO_CHANGE', 'the patch changes nothing; nothing written');
      const loop = next.work_loop;
      if (loop.model === null || loop.max_turns === 0 || loop.budget_usd === 0) {
        throw new LoomError('ASSISTANT_WOULD_GO_MUTE', `the member would have ${loop.model === null ? 'no model' : loop.max_turns === 0 ? 'max_turns 0' : 'a zero budget'}; nothing written`);
      }
      // Every bound before any write; new words are a reference only once written, so they are left out of the check.
      await checkDefinition(caller, did, patch.prompt === undefined ? next : { ...next, work_loop: { ...loop, system_prompt_ref: null } }, this.deps);
      let promptId: string | null = null;
      if (patch.prompt !== undefined) {
        promptId = await this.writePrompt(did, patch.prompt, entry.current.work_loop.system_prompt_ref);
        next.work_loop.system_prompt_ref = `record:${promptId}`;
      }
      await this.writeVersion(caller, entry, entry.current, next, 'patched', null);
      return { row: memberRow(this.entry(did)!), promptRecordId: promptId };
    });
  }

  revert(caller: Caller, did: string, versionId: string): Promise<MemberRow> {
    return this.deps.sections.run(REGISTRY_SECTION, async () => {
      const entry = this.ownedEntry(caller, did);
      if (!entry.versions.some((v) => v.id === versionId)) throw new LoomError('VERSION_UNKNOWN', `${versionId} is not a version of ${did} (GET /v1/actors/{did}/history lists them)`);
      if (entry.currentId === versionId) throw new LoomError('NOTHING_TO_CHANGE', `${versionId} is already the version in force`);
      const old = await this.versionBody(versionId);
      const fields = fieldsOf(old);
      if (sameFields(fields, fieldsOf(entry.current))) throw new LoomError('NOTHING_TO_CHANGE', `version ${old.version} says what the version in force says`);
      await checkDefinition(caller, did, fields, this.deps);
      await this.writeVersion(caller, entry, entry.current, fields, 'reverted', versionId);
      return memberRow(this.entry(did)!);
    });
  }

  async retire(caller: Caller, did: string): Promise<void> {
    const entry = this.entry(did);
    if (!entry) throw new LoomError('NO_SUCH_ACTOR', `no member ${did} is defined here`);
    if (entry.current.owner !== actingDid(caller) && !isOperator(caller)) throw new LoomError('RETIRE_FORBIDDEN', `only ${entry.current.owner} (who defined it) or an operator may retire ${did}`);
    if (entry.current.retired) return;
    await this.deps.sections.run(REGISTRY_SECTION, async () => {
      const fresh = this.entry(did)!;
      if (fresh.current.retired) return;
      // One record does all three steps of the spec's order (permission revoked, no longer a thread default, disabled): no half-retired state.
      await this.writeVersion(caller, fresh, fresh.current, { ...fieldsOf(fresh.current), default_on_new_threads: false }, 'retired', null);
    });
  }

  async history(caller: Caller, did: string, limit: number): Promise<{ total: number; truncated: boolean; data: HistoryVersion[] }> {
    const entry = this.ownedEntry(caller, did, false);
    const versions = entry.versions;
    const shown = versions.slice(Math.max(0, versions.length - limit)).reverse();
    // The version before the oldest shown is read too, so its `changed` is exact.
    const oldestShown = versions.length - shown.length;
    const ids = [...(oldestShown > 0 ? [versions[oldestShown - 1]!.id] : []), ...shown.map((v) => v.id).reverse()];
    const bodies = new Map<string, DefinitionBody>();
    for (const id of ids) bodies.set(id, await this.versionBody(id));
    const data = shown.map((version, i) => {
      const body = bodies.get(version.id)!;
      const index = versions.length - 1 - i;
      const before = index > 0 ? bodies.get(versions[index - 1]!.id) ?? null : null;
      return historyVersion(version, body, before);
    });
    return { total: versions.length, truncated: versions.length > shown.length, data };
  }

  private ownedEntry(caller: Caller, did: string, refuseRetired = true): MemberEntry {
    const entry = this.entry(did);
    if (!entry) throw new LoomError('ACTOR_UNKNOWN', `no member ${did} is defined here`);
    if (entry.current.owner !== actingDid(caller)) throw new LoomError('OWNER_ONLY', `only ${entry.current.owner}, who defined ${did}, may do this`);
    if (refuseRetired && entry.current.retired) throw new LoomError('ACTOR_RETIRED', `${did} is retired; define it again with the same label instead`);
    return entry;
  }

  private async versionBody(id: string): Promise<DefinitionBody> {
    const stored = await this.deps.reader.get(SYSTEM, id);
    if (!stored || stored.record.body['kind'] !== KIND_DEFINITION) throw new LoomError('VERSION_UNKNOWN', `version ${id} is not stored here`);
    return stored.record.body as unknown as DefinitionBody;
  }

  private async writeVersion(
    caller: Caller,
    previous: MemberEntry | null,
    who: { label: string; owner: string; did?: string; actor_did?: string },
    fields: DefinitionFields,
    change: Change,
    revertedTo: string | null,
  ): Promise<string> {
    const body = versionBody(actingDid(caller), previous, who, fields, change, revertedTo);
    const { stored } = await this.deps.writer.appendAs(SYSTEM, {
      thread: TH_ACTOR_REGISTRY,
      act: 'LEARN',
      actor: this.deps.instanceDid,
      plugin: 'members',
      body: body as unknown as JsonObject,
      parents: previous ? [previous.currentId] : [],
    });
    return stored.record.id;
  }

  private async writePrompt(did: string, text: string, previousRef: string | null): Promise<string> {
    const previous = previousRef?.startsWith('record:') ? previousRef.slice('record:'.length) : null;
    const { stored } = await this.deps.writer.appendAs(SYSTEM, {
      thread: TH_ACTOR_REGISTRY,
      act: 'LEARN',
      actor: this.deps.instanceDid,
      plugin: 'members',
      body: promptBody(did, text),
      parents: previous ? [previous] : [],
    });
    return stored.record.id;
  }

  // ---- Blueprints (blueprints/blueprint-service.ts) ----
  /**
   * Runs `work` inside the registry's critical section with a writer of
   * registry records (as the instance, by this plugin): a blueprint plans
   * against the registry as its writes will find it, then writes its
   * prompts, versions and its own record with no other registry write
   * between its plan and its last write.
   */
  inRegistrySection<T>(work: (write: (body: JsonObject, parents: readonly string[]) => Promise<LoomRecord>) => Promise<T>): Promise<T> {
    return this.deps.sections.run(REGISTRY_SECTION, () =>
      work(async (body, parents) => {
        const { stored } = await this.deps.writer.appendAs(SYSTEM, { thread: TH_ACTOR_REGISTRY, act: REGISTRY_ACT, actor: this.deps.instanceDid, plugin: 'members', body, parents });
        return stored.record;
      }),
    );
  }
  // ---- end Blueprints ----
}

// The bodies every registry write composes (a blueprint's plan builds the same ones it then writes).
/** The act of every registry record (definitions, prompts, blueprints). */
export const REGISTRY_ACT = 'LEARN';

/** The body of the version `by` writes after `previous` (so a blueprint's plan is exactly what is written). */
export function versionBody(
  by: string,
  previous: MemberEntry | null,
  who: { label: string; owner: string; did?: string; actor_did?: string },
  fields: DefinitionFields,
  change: Change,
  revertedTo: string | null,
): DefinitionBody {
  return {
    kind: KIND_DEFINITION,
    actor_did: who.did ?? who.actor_did!,
    label: who.label,
    owner: who.owner,
    by,
    version: (previous?.current.version ?? 0) + 1,
    change,
    enabled: change !== 'retired',
    retired: change === 'retired',
    reverted_to: revertedTo,
    ...fields,
  };
}

/** A member's prompt words as a `core.actor.prompt.v1` body. */
export function promptBody(did: string, text: string): JsonObject {
  return { kind: KIND_PROMPT, schema_version: '1.0.0', role: 'charter', actor_did: did, text };
}

const sameFields = (a: DefinitionFields, b: DefinitionFields): boolean => JSON.stringify(a) === JSON.stringify(b);

const CHANGE_FIELDS = ['model', 'prompt', 'tools', 'budget_usd', 'max_turns', 'display_name'] as const;

function historyVersion(version: MemberEntry['versions'][number], body: DefinitionBody, before: DefinitionBody | null): HistoryVersion {
  const loop = body.work_loop;
  return {
    definition_record_id: version.id,
    version: body.version,
    at: version.at,
    by: version.by,
    change: body.change,
    changed: before === null ? ['created'] : changedFields(before, body),
    display_name: body.display_name,
    model: loop.model,
    prompt_record_id: loop.system_prompt_ref?.startsWith('record:') ? loop.system_prompt_ref.slice('record:'.length) : null,
    tools: [...loop.tools],
    budget_usd: loop.budget_usd,
    max_turns: loop.max_turns,
    daily_cost_cap_usd: loop.daily_cost_cap_usd,
    daily_loop_cap: loop.daily_loop_cap,
    retired: body.retired,
  };
}

/** Which of the history's fields differ: tools as a set, words by record. */
export function changedFields(before: DefinitionBody, after: DefinitionBody): string[] {
  const changed: string[] = [];
  for (const field of CHANGE_FIELDS) {
    const differs =
      field === 'model'
        ? before.work_loop.model !== after.work_loop.model
        : field === 'prompt'
          ? before.work_loop.system_prompt_ref !== after.work_loop.system_prompt_ref
          : field === 'tools'
            ? [...before.work_loop.tools].sort().join('\n') !== [...after.work_loop.tools].sort().join('\n')
            : field === 'display_name'
              ? before.display_name !== after.display_name
              : before.work_loop[field] !== after.work_loop[field];
    if (differs) changed.push(field);
  }
  return changed;
}

export const MemberServiceToken = token<MemberService>('members.MemberService');
