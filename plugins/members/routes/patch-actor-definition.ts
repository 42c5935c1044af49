import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { MemberServiceToken } from '../member-service.js';
import { MemberDidParams, MemberRowSchema } from '../schemas.js';

const PatchSchema = Type.Object(
  {
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    prompt: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000 })),
    tools: Type.Optional(
      Type.Object(
        { add: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })), remove: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })) },
        { additionalProperties: false },
      ),
    ),
    budget_usd: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
    max_turns: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  },
  { additionalProperties: false },
);

export const patchActorDefinition = defineRoute({
  operationId: 'patchActorDefinition',
  method: 'PATCH',
  path: '/v1/actors/{did}/definition',
  summary: "Change a member's definition (owner only)",
  description:
    'A partial change, checked under the define bounds and written as one new definition version (the previous one its parent). New prompt words are written as a core.actor.prompt.v1 record the version points at. Unknown fields are refused.',
  tags: ['members'],
  auth: { scope: 'records:write' },
  invalidInput: 'INVALID_BODY',
  request: { params: MemberDidParams, body: PatchSchema },
  responses: {
    200: {
      description: 'The member as it is now.',
      schema: Type.Intersect([MemberRowSchema, Type.Object({ prompt_record_id_written: Type.Optional(Type.String({ description: 'The prompt record written, when the words changed.' })) })], { $id: 'PatchedMember' }),
    },
  },
  errors: ['INVALID_BODY', 'OWNER_ONLY', 'ACTOR_UNKNOWN', 'ACTOR_RETIRED', 'ASSISTANT_WOULD_GO_MUTE', 'MODEL_UNKNOWN', 'TOOL_NOT_DECLARED', 'TOOL_NOT_IN_REACH', 'GRANT_REFUSED', 'NOTHING_TO_CHANGE'],
  inject: { members: MemberServiceToken },
  handler: async ({ params, body, caller }, { members }) => {
    if (!body || Object.keys(body).length === 0) throw new LoomError('NOTHING_TO_CHANGE', 'the patch is empty; nothing written');
    const { row, promptRecordId } = await members.patch(caller, params.did, body);
    return promptRecordId ? { ...row, prompt_record_id_written: promptRecordId } : row;
  },
});
