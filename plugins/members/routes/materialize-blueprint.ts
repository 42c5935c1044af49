import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { Reply } from '../../../core/plugin/reply.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { compileValidator } from '../../../core/server/validators.js';
import { MaterializeRequestSchema, type MaterializeRequest } from '../blueprints/blueprint-format.js';
import { BlueprintServiceToken } from '../blueprints/blueprint-service.js';

const validate = compileValidator('body', MaterializeRequestSchema, 'INVALID_BODY');

const BlueprintPlanSchema = Type.Object(
  {
    object: Type.Literal('blueprint_plan'),
    name: Type.String(),
    plan_hash: Type.String({ description: 'SHA-256 of the canonical plan (ids of records in the plan written plan:<index>): send it back as accept_plan to apply.' }),
    applied: Type.Boolean(),
    admitted_as: Type.Union([Type.Literal('trusted_signer'), Type.Literal('operator_unsigned')]),
    signer: Type.Union([Type.String(), Type.Null()]),
    extends: Type.Array(Type.String(), { description: 'The blueprint records it extends.' }),
    members: Type.Array(
      Type.Object({
        label: Type.String(),
        actor_did: Type.String(),
        change: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('unchanged')]),
        definition: Type.String({ description: 'The definition record in force once applied.' }),
      }),
    ),
    records: Type.Array(
      Type.Object({
        role: Type.Union([Type.Literal('prompt'), Type.Literal('definition'), Type.Literal('blueprint')]),
        member: Type.Union([Type.String(), Type.Null()]),
        record: RecordSchema,
      }),
      { description: 'In write order: prompts, definitions, the blueprint record. Planned: the id each gets when nothing else writes to th_actor_registry first; applied: as written.' },
    ),
    blueprint_record: Type.Union([Type.String(), Type.Null()], { description: 'null: already materialized as it is, nothing to write.' }),
  },
  { $id: 'BlueprintPlan' },
);

export const materializeBlueprint = defineRoute({
  operationId: 'materializeBlueprint',
  method: 'POST',
  path: '/v1/blueprints/materialize',
  summary: 'Plan or install a blueprint of member actors',
  description:
    'The instance authors the blueprint as records: prompt records, one definition version per actor whose definition changes, and a blueprint record. A blueprint must be signed by a key in blueprint_signers, or be an operator\'s where blueprints_allow_unsigned is on. Every actor is checked under the caller\'s own bounds first: one refusal refuses the whole blueprint. Without accept_plan the answer is 428 PLAN_CONSENT_REQUIRED carrying `plan_hash` and `plan`; dry_run answers the plan (200); accept_plan equal to the plan\'s hash applies it (201; 200 when there was nothing to write); another hash is 409 PLAN_HASH_MISMATCH carrying the current plan. `regime` is not in blueprint_version 1.',
  tags: ['members'],
  auth: { scope: 'records:write' },
  bodyValidation: 'handler',
  invalidInput: 'INVALID_BODY',
  request: { body: MaterializeRequestSchema },
  responses: {
    200: { description: 'The plan, not applied (dry run), or applied with nothing to write (applied: true, no records).', schema: BlueprintPlanSchema },
    201: { description: 'Applied: the records written.', schema: BlueprintPlanSchema },
  },
  errors: [
    'INVALID_BODY',
    'MISSING_FIELD',
    'NOT_FOUND',
    'BLUEPRINT_UNSIGNED',
    'WORK_PROMPT_UNRESOLVED', 'GRANT_REFUSED',
    'MODEL_UNKNOWN',
    'TOOL_NOT_DECLARED',
    'TOOL_NOT_IN_REACH',
    'WRITE_KIND_NOT_ADMITTED',
    'READS_NOT_COVERED',
    'DAILY_CAP_TOO_WIDE',
    'PLAN_CONSENT_REQUIRED',
    'PLAN_HASH_MISMATCH',
  ],
  inject: { blueprints: BlueprintServiceToken },
  handler: async ({ body, caller }, { blueprints }) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new LoomError('INVALID_BODY', 'the body must be a JSON object');
    const raw = body as Record<string, unknown>;
    if (raw['regime'] !== undefined && raw['regime'] !== null) throw new LoomError('INVALID_BODY', 'regime is not in blueprint_version 1: leave it out (or null); a member runs at its tier (actor_tier)');
    if (raw['blueprint'] === undefined) throw new LoomError('MISSING_FIELD', 'blueprint is required');
    const { status, answer } = await blueprints.materialize(caller, validate(raw) as MaterializeRequest);
    return Reply.json(status, answer);
  },
});
