/**
 * A blueprint (spec §4.7 `POST /v1/blueprints/materialize`): a declarative
 * bundle of member definitions, and the prompt words they point at, that the
 * instance authors as records.
 *
 *   {blueprint_version: 1, name, description?,
 *    prompts?: {<prompt name>: <text>},
 *    actors: [{label, ...the define fields of §4.15, prompt?: <prompt name>}],
 *    signature?: {alg: "Ed25519", signer: <did:key>, value: <base64>}}
 *
 * An actor is exactly a define request (the same member: caller + label)
 * plus `prompt`, the name of words in `prompts` that become a
 * `core.actor.prompt.v1` record its `work_loop.system_prompt_ref` points at
 * (so `prompt` and a `system_prompt_ref` of its own exclude each other). The
 * signature covers the canonical JSON of the blueprint without `signature`.
 * A materialization is recorded as a `core.actor.blueprint.v1` record (the
 * effective actors and prompts, inherited ones included) that later
 * blueprints may `extend`.
 */
import { Type, type Static } from 'typebox';
import { DefineRequestSchema, type DefineRequest } from '../definition.js';

export const BLUEPRINT_VERSION = 1;
export const KIND_BLUEPRINT = 'core.actor.blueprint.v1';

/** A blueprint name: what `extends` names it by. 63 characters at most, so no name reads as a record id. */
export const BLUEPRINT_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
export const PROMPT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** At most this many actors and prompts in one blueprint (after inheritance), and this many blueprints extended. */
export const MAX_ACTORS = 50;
export const MAX_PROMPTS = 50;
export const MAX_EXTENDS = 8;

const PromptText = Type.String({ minLength: 1, maxLength: 100_000 });

export const BlueprintActorSchema = Type.Object(
  {
    ...DefineRequestSchema.properties,
    prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The name of words in `prompts` the member runs under (written as its prompt record).' })),
  },
  { additionalProperties: false },
);
export type BlueprintActor = DefineRequest & { prompt?: string };

export const BlueprintSignatureSchema = Type.Object(
  {
    alg: Type.Literal('Ed25519'),
    signer: Type.String({ minLength: 1, maxLength: 200, description: 'did:key of the Ed25519 key that signed.' }),
    value: Type.String({ minLength: 1, maxLength: 200, description: 'base64 Ed25519 signature over the canonical JSON of the blueprint without `signature`.' }),
  },
  { additionalProperties: false },
);
export type BlueprintSignature = Static<typeof BlueprintSignatureSchema>;

export const BlueprintSchema = Type.Object(
  {
    blueprint_version: Type.Literal(BLUEPRINT_VERSION),
    name: Type.String({ pattern: BLUEPRINT_NAME_PATTERN }),
    description: Type.Optional(Type.String({ maxLength: 2_000 })),
    prompts: Type.Optional(Type.Record(Type.String(), PromptText, { maxProperties: MAX_PROMPTS, description: 'Prompt words by name.' })),
    actors: Type.Array(BlueprintActorSchema, { minItems: 1, maxItems: MAX_ACTORS }),
    signature: Type.Optional(BlueprintSignatureSchema),
  },
  { $id: 'Blueprint', additionalProperties: false },
);

export interface Blueprint {
  blueprint_version: typeof BLUEPRINT_VERSION;
  name: string;
  description?: string;
  prompts?: Record<string, string>;
  actors: BlueprintActor[];
  signature?: BlueprintSignature;
}

export const MaterializeRequestSchema = Type.Object(
  {
    blueprint: BlueprintSchema,
    extends: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: MAX_EXTENDS,
        description: 'Blueprints already materialized whose actors and prompts this one inherits (later ones and this blueprint override by label and name): a record id, or a name the caller materialized.',
      }),
    ),
    regime: Type.Optional(Type.Null({ description: 'Not in blueprint_version 1: absent or null (anything else is INVALID_BODY).' })),
    accept_plan: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The plan_hash of the plan reviewed: applies it.' })),
    dry_run: Type.Optional(Type.Boolean({ description: 'Plan only: answer the plan (200) and write nothing.' })),
  },
  { additionalProperties: false },
);

export interface MaterializeRequest {
  blueprint: Blueprint;
  extends?: string[];
  regime?: null;
  accept_plan?: string;
  dry_run?: boolean;
}

/** The body of the record a materialization writes last. */
export interface BlueprintRecordBody {
  kind: typeof KIND_BLUEPRINT;
  blueprint_version: typeof BLUEPRINT_VERSION;
  name: string;
  description: string | null;
  /** The DID that materialized it (the owner of its members). */
  owner: string;
  /** SHA-256 of the canonical blueprint as submitted, without its signature. */
  source_hash: string;
  /** did:key of its signer, or null for an operator's unsigned blueprint. */
  signer: string | null;
  admitted_as: Admission;
  /** The blueprint records it extends, in order. */
  extends: string[];
  /** Effective: inherited and its own, only those an actor uses. */
  prompts: Record<string, string>;
  /** Effective: inherited and its own, as declared. */
  actors: BlueprintActor[];
  /** Each actor's member and the definition in force once materialized. */
  members: Array<{ label: string; actor_did: string; definition: string   /** The member whose approved proposal installed it, when one did. */
  proposed_by?: string;
}>;
}

/** Why a blueprint may be materialized at all: a trusted signature, or an operator where unsigned ones are allowed. */
export type Admission = 'trusted_signer' | 'operator_unsigned';
