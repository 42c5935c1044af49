import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { Reply } from '../../../core/plugin/reply.js';
import { compileValidator } from '../../../core/server/validators.js';
import { DefineRequestSchema, definitionFields, type DefineRequest } from '../definition.js';
import { MemberServiceToken } from '../member-service.js';

/** Fields the spec names as inert at define: accepted by older clients, meaning nothing here. */
const INERT = [
  ['work_loop', 'reach'],
  ['admit', null],
] as const;

const validate = compileValidator('body', DefineRequestSchema, 'INVALID_BODY');

export const defineActor = defineRoute({
  operationId: 'defineActor',
  method: 'POST',
  path: '/v1/actors/define',
  summary: 'Define a member actor, or update it',
  description:
    'Creates the member the caller and label name, or writes its next version (the same caller and label update the same member; a retired member is defined again). Every bound is checked before the first write: a refused request writes nothing.',
  tags: ['members'],
  auth: { scope: 'records:write' },
  bodyValidation: 'handler',
  invalidInput: 'INVALID_BODY',
  request: { body: DefineRequestSchema },
  responses: {
    201: {
      description: 'Defined: the member DID and the definition record id.',
      schema: Type.Object({ actor_did: Type.String(), definition: Type.String(), created: Type.Boolean({ description: 'false: an existing member got a new version.' }) }, { $id: 'DefinedActor' }),
    },
  },
  errors: ['INVALID_BODY', 'MISSING_FIELD', 'DEFINE_FIELD_INERT', 'WORK_PROMPT_UNRESOLVED', 'GRANT_REFUSED', 'READS_NOT_COVERED', 'DAILY_CAP_TOO_WIDE', 'TOOL_NOT_IN_REACH', 'WRITE_KIND_NOT_ADMITTED', 'MODEL_UNKNOWN', 'TOOL_NOT_DECLARED'],
  inject: { members: MemberServiceToken },
  handler: async ({ body, caller }, { members }) => {
    const raw = (body ?? {}) as Record<string, unknown>;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new LoomError('INVALID_BODY', 'the body must be a JSON object');
    for (const [parent, child] of INERT) {
      const holder = child === null ? raw : (raw[parent] as Record<string, unknown> | undefined);
      const name = child ?? parent;
      if (holder && typeof holder === 'object' && name in holder) throw new LoomError('DEFINE_FIELD_INERT', `${child === null ? parent : `${parent}.${child}`} means nothing at define: the caller's reach bounds a member (tools, write_admit, reads)`);
    }
    if (typeof raw['label'] !== 'string' || raw['label'].trim() === '') throw new LoomError('MISSING_FIELD', 'label is required and must not be blank');
    const request = validate(raw) as DefineRequest;
    const defined = await members.define(caller, request.label, definitionFields(request));
    return Reply.json(201, { actor_did: defined.did, definition: defined.definition, created: defined.created });
  },
});
