import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { MemberServiceToken } from '../member-service.js';
import { MemberDidParams, MemberRowSchema } from '../schemas.js';

export const revertActorDefinition = defineRoute({
  operationId: 'revertActorDefinition',
  method: 'POST',
  path: '/v1/actors/{did}/definition/revert',
  summary: 'Put an earlier version back in force (owner only)',
  description: "Written as a NEW version re-emitting the old one's fields, parented to the version it supersedes, and checked under today's bounds. A revert never retires or un-retires.",
  tags: ['members'],
  auth: { scope: 'records:write' },
  invalidInput: 'INVALID_BODY',
  request: { params: MemberDidParams, body: Type.Object({ version: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'A definition_record_id from the history.' }) }, { additionalProperties: false }) },
  responses: { 200: { description: 'The member as it is now.', schema: Type.Intersect([MemberRowSchema, Type.Object({ reverted_to: Type.String() })], { $id: 'RevertedMember' }) } },
  errors: ['INVALID_BODY', 'OWNER_ONLY', 'ACTOR_UNKNOWN', 'VERSION_UNKNOWN', 'ACTOR_RETIRED', 'NOTHING_TO_CHANGE', 'TOOL_NOT_IN_REACH', 'WRITE_KIND_NOT_ADMITTED', 'READS_NOT_COVERED', 'DAILY_CAP_TOO_WIDE', 'MODEL_UNKNOWN', 'TOOL_NOT_DECLARED', 'WORK_PROMPT_UNRESOLVED', 'GRANT_REFUSED'],
  inject: { members: MemberServiceToken },
  handler: async ({ params, body, caller }, { members }) => ({ ...(await members.revert(caller, params.did, body.version)), reverted_to: body.version }),
});
