/**
 * Whether a caller may put a definition in force (spec §4.15): checked
 * whole before anything is written, by define, patch, revert and (per
 * actor) blueprints. References must resolve for everyone; the reach
 * checks hold a bounded caller (a credential without `admin`: its scopes,
 * grains and read policies are its bound) to what it holds itself, so a
 * member is never wider than whoever defined it. An operator is unbounded
 * here; runs are still clamped by tier when they start.
 */
import { actingDid, type Caller } from '../../core/access/caller.js';
import { threadVisibility } from '../../core/access/restriction.js';
import { isAdmin, scopeWithin } from '../../core/access/scopes.js';
import type { Config } from '../../core/folds/config/config-topic.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { RecordReader } from '../../core/engine/record-reader.js';
import { token } from '../../core/di/token.js';
import { isThreadId } from '../../core/records/thread-id.js';
import { KIND_PROMPT, promptRecordId, type DefinitionFields } from './definition.js';
import type { ModelCatalog } from './model-catalog.js';
import { tierCaps, tierOf } from './tiers.js';
import type { ToolRegistry } from './tool-registry.js';

/** Kinds only the instance writes: no member declares them (a bounded caller could not write them either). */
const INSTANCE_KIND_PREFIXES = ['core.identity.', 'core.engine.', 'core.fleet.', 'core.federation.', 'core.actor.definition'];

export interface BoundsDeps {
  readonly reader: RecordReader;
  readonly tools: ToolRegistry;
  readonly models: ModelCatalog;
  readonly config: Config;
  /** Why the caller may not delegate to a member (its grant is out of force or max_depth 0), or null; absent without the auth plugin. */
  readonly delegationRefusal?: (caller: Caller) => string | null;
  /** The namespace a thread's records are in (undefined: an empty thread). */
  readonly threadNamespace: (thread: string) => Promise<string | undefined>;
}

/** The define bounds' dependencies, for doors that check a definition they do not install (a run's one-off trial). */
export const MemberBoundsToken = token<BoundsDeps>('members.MemberBounds');

/** Bounded: a credential that is not an operator's (admin) credential. */
export function isBounded(caller: Caller): boolean {
  return caller.kind === 'credential' && !isAdmin(caller.scopes);
}

export async function checkDefinition(caller: Caller, member: string, fields: DefinitionFields, deps: BoundsDeps): Promise<void> {
  const loop = fields.work_loop;
  // A member acts under its definer's authority: a grant that cannot be delegated further cannot define one.
  const refusal = deps.delegationRefusal?.(caller) ?? null;
  if (refusal !== null) throw new LoomError('GRANT_REFUSED', `${refusal}: a member acts under its definer's grant, so none can be put in force from this credential`);
  for (const thread of loop.reads) if (!isThreadId(thread)) throw new LoomError('INVALID_BODY', `work_loop.reads: ${JSON.stringify(thread)} is not a thread id`);
  if (loop.system_prompt_ref !== null) await checkPrompt(caller, loop.system_prompt_ref, deps.reader);
  if (loop.model !== null && !deps.models.get(loop.model)) throw new LoomError('MODEL_UNKNOWN', `model ${loop.model} is not in this instance's priced catalog (GET /v1/self/workspace lists models[])`);
  for (const name of loop.approval_required ?? []) if (!deps.tools.get(name)) throw new LoomError('TOOL_NOT_DECLARED', `work_loop.approval_required: tool ${name} is not a tool this instance has`);
  for (const name of loop.tools) if (!deps.tools.get(name)) throw new LoomError('TOOL_NOT_DECLARED', `tool ${name} is not a tool this instance has (${deps.tools.list().map((t) => t.name).join(', ') || 'none are registered'})`);
  if (!isBounded(caller)) return;
  for (const name of loop.tools) {
    const tool = deps.tools.get(name)!;
    if (!scopeWithin(tool.scope, caller.scopes)) throw new LoomError('TOOL_NOT_IN_REACH', `tool ${name} needs ${tool.scope}, which this credential does not hold`);
  }
  for (const clause of fields.write_admit) {
    if (!scopeWithin(clause, caller.scopes) || !/(^records:write$|^admin$|:write$)/.test(clause)) {
      throw new LoomError('WRITE_KIND_NOT_ADMITTED', `write_admit ${clause} is not within what this credential may write`);
    }
  }
  for (const kind of fields.declares_kinds) {
    if (INSTANCE_KIND_PREFIXES.some((prefix) => kind.startsWith(prefix))) throw new LoomError('WRITE_KIND_NOT_ADMITTED', `declares_kinds ${kind}: only the instance writes that kind`);
  }
  await checkReads(caller, loop.reads, deps);
  const caps = tierCaps(deps.config, tierOf(deps.config, member));
  if (loop.daily_cost_cap_usd !== null && caps.daily_cost_cap_usd !== null && loop.daily_cost_cap_usd > caps.daily_cost_cap_usd) {
    throw new LoomError('DAILY_CAP_TOO_WIDE', `work_loop.daily_cost_cap_usd ${loop.daily_cost_cap_usd} is above the member's tier cap of ${caps.daily_cost_cap_usd}`);
  }
  if (loop.daily_loop_cap !== null && caps.daily_loop_cap !== null && loop.daily_loop_cap > caps.daily_loop_cap) {
    throw new LoomError('DAILY_CAP_TOO_WIDE', `work_loop.daily_loop_cap ${loop.daily_loop_cap} is above the member's tier cap of ${caps.daily_loop_cap}`);
  }
}

async function checkPrompt(caller: Caller, ref: string, reader: RecordReader): Promise<void> {
  const id = promptRecordId(ref);
  if (id === null) throw new LoomError('WORK_PROMPT_UNRESOLVED', `work_loop.system_prompt_ref must be record:<64 hex id>, not ${JSON.stringify(ref)}`);
  const stored = await reader.get(caller, id);
  if (!stored || stored.record.body['kind'] !== KIND_PROMPT) {
    throw new LoomError('WORK_PROMPT_UNRESOLVED', `work_loop.system_prompt_ref ${ref} names no ${KIND_PROMPT} record this credential can read`);
  }
}

async function checkReads(caller: Caller, threads: readonly string[], deps: BoundsDeps): Promise<void> {
  const restriction = deps.reader.restriction(caller);
  for (const thread of threads) {
    const visible = threadVisibility(restriction, thread);
    if (visible === 'all' && scopeWithin(`thread:${thread}:read`, caller.scopes)) continue;
    if (visible !== 'none') {
      // Decided per record (a namespace grain): covered when the thread's namespace is.
      const namespace = (await deps.threadNamespace(thread)) ?? 'default';
      if (scopeWithin(`thread:${thread}:read`, caller.scopes) || scopeWithin(`namespace:${namespace}:read`, caller.scopes)) continue;
    }
    throw new LoomError('READS_NOT_COVERED', `work_loop.reads ${thread}: ${actingDid(caller)} cannot read that thread`);
  }
}

