/**
 * A member's definition (spec §4.15), as the define door takes it and as
 * every version is recorded: a `core.actor.definition.v1` record on
 * th_actor_registry whose `parents` cite the version it replaces.
 *
 *   {kind, actor_did, label, owner, version, change, retired, enabled,
 *    display_name, mechanism, trust_domain, brief, stands_on, declares_kinds,
 *    default_on_new_threads, write_admit, work_loop: {...}, reverted_to?}
 *
 * Absent fields are null (records hold no undefined), so two versions
 * compare field by field.
 */
import { Type, type Static } from 'typebox';

export const KIND_DEFINITION = 'core.actor.definition.v1';
export const KIND_PROMPT = 'core.actor.prompt.v1';

const Text = (maxLength: number) => Type.String({ maxLength });
const Usd = Type.Number({ minimum: 0, maximum: 1_000_000 });
/** A write_admit clause: a scope or write grain (`records:write`, `namespace:acme:write`, `thread:th_…:write`). */
const Clause = Type.String({ minLength: 1, maxLength: 300 });
const Kind = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9_.:-]+$' });

export const WorkLoopSchema = Type.Object(
  {
    model: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    system_prompt_ref: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    tools: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    reads: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
    budget_usd: Type.Optional(Type.Union([Usd, Type.Null()])),
    max_turns: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 10_000 }), Type.Null()])),
    daily_cost_cap_usd: Type.Optional(Type.Union([Usd, Type.Null()])),
    daily_loop_cap: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1_000_000 }), Type.Null()])),
    conversation_loop: Type.Optional(Type.Boolean()),
    verification: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('self'), Type.Literal('peer'), Type.Literal('person')])),
    approval_required: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        maxItems: 100,
        description: 'Tools whose every call waits on a person: the run raises a decision (approve or reject) before the call runs. Each must be a tool this instance has.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const DefineRequestSchema = Type.Object(
  {
    label: Type.String({ maxLength: 200 }),
    display_name: Type.Optional(Text(200)),
    mechanism: Type.Optional(Type.Union([Type.Literal('llm'), Type.Literal('human'), Type.Literal('script')])),
    trust_domain: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    brief: Type.Optional(Type.Union([Text(10_000), Type.Null()])),
    stands_on: Type.Optional(Type.Union([Text(10_000), Type.Null()])),
    declares_kinds: Type.Optional(Type.Array(Kind, { maxItems: 100 })),
    default_on_new_threads: Type.Optional(Type.Boolean()),
    write_admit: Type.Optional(Type.Array(Clause, { maxItems: 100 })),
    work_loop: Type.Optional(WorkLoopSchema),
  },
  { additionalProperties: false },
);
export type DefineRequest = Static<typeof DefineRequestSchema>;

export interface WorkLoop {
  model: string | null;
  system_prompt_ref: string | null;
  tools: string[];
  reads: string[];
  budget_usd: number | null;
  max_turns: number | null;
  daily_cost_cap_usd: number | null;
  daily_loop_cap: number | null;
  conversation_loop: boolean;
  verification: 'none' | 'self' | 'peer' | 'person';
  /** Tools whose calls wait on a person's approval; absent (not []) when none, so versions defined before it existed compare equal. */
  approval_required?: string[];
}

/** What a version says about the member (everything but who, when and why it was written). */
export interface DefinitionFields {
  display_name: string;
  mechanism: 'llm' | 'human' | 'script';
  trust_domain: string | null;
  brief: string | null;
  stands_on: string | null;
  declares_kinds: string[];
  default_on_new_threads: boolean;
  write_admit: string[];
  work_loop: WorkLoop;
}

export type Change = 'defined' | 'patched' | 'reverted' | 'retired';

/** The body of a definition record. */
export interface DefinitionBody extends DefinitionFields {
  kind: typeof KIND_DEFINITION;
  actor_did: string;
  label: string;
  owner: string;
  /** Who wrote this version: the owner, or an operator retiring it. */
  by: string;
  version: number;
  change: Change;
  enabled: boolean;
  retired: boolean;
  reverted_to: string | null;
  /** Set when a member proposed this version (a blueprint proposal a person approved): that member may not judge runs under it. */
  proposed_by?: string;
}

/** The fields of a define request, defaults filled (tools and reads sorted and without repeats). */
export function definitionFields(request: DefineRequest): DefinitionFields {
  const loop = request.work_loop ?? {};
  return {
    display_name: request.display_name ?? request.label.trim(),
    mechanism: request.mechanism ?? 'llm',
    trust_domain: request.trust_domain ?? null,
    brief: request.brief ?? null,
    stands_on: request.stands_on ?? null,
    declares_kinds: sortedSet(request.declares_kinds ?? []),
    default_on_new_threads: request.default_on_new_threads ?? false,
    write_admit: sortedSet(request.write_admit ?? []),
    work_loop: {
      model: loop.model ?? null,
      system_prompt_ref: loop.system_prompt_ref ?? null,
      tools: sortedSet(loop.tools ?? []),
      reads: sortedSet(loop.reads ?? []),
      budget_usd: loop.budget_usd ?? null,
      max_turns: loop.max_turns ?? null,
      daily_cost_cap_usd: loop.daily_cost_cap_usd ?? null,
      daily_loop_cap: loop.daily_loop_cap ?? null,
      conversation_loop: loop.conversation_loop ?? false,
      verification: loop.verification ?? 'none',
      ...(loop.approval_required !== undefined && loop.approval_required.length > 0 ? { approval_required: sortedSet(loop.approval_required) } : {}),
    },
  };
}

export function sortedSet(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

/** The fields of a recorded version (the body less its bookkeeping). */
export function fieldsOf(body: DefinitionBody): DefinitionFields {
  const { display_name, mechanism, trust_domain, brief, stands_on, declares_kinds, default_on_new_threads, write_admit, work_loop } = body;
  return { display_name, mechanism, trust_domain, brief, stands_on, declares_kinds, default_on_new_threads, write_admit, work_loop };
}

/** The record id a `record:<id>` prompt reference names, or null for any other scheme. */
export function promptRecordId(ref: string | null): string | null {
  if (ref === null) return null;
  const match = /^record:([0-9a-f]{64})$/.exec(ref);
  return match ? match[1]! : null;
}
