import { Type } from 'typebox';
import { actingDid } from '../../../core/access/caller.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ModelCatalogToken } from '../model-catalog-token.js';
import { memberRow } from '../member-row.js';
import { MemberServiceToken } from '../member-service.js';
import { MemberRowSchema, PricedModelSchema } from '../schemas.js';

export const getSelfWorkspace = defineRoute({
  operationId: 'getSelfWorkspace',
  method: 'GET',
  path: '/v1/self/workspace',
  summary: "The caller's workspace: the models it may choose and the members it defined",
  description: 'models[] is the priced catalog (what work_loop.model and PATCH model may name); assistants[] the members the caller defined, as PATCH answers them.',
  tags: ['members'],
  auth: { scope: 'records:read' },
  responses: {
    200: {
      description: 'The workspace.',
      schema: Type.Object({ object: Type.Literal('workspace'), actor: Type.String(), models: Type.Array(PricedModelSchema), assistants: Type.Array(MemberRowSchema) }, { $id: 'Workspace' }),
    },
  },
  errors: [],
  inject: { members: MemberServiceToken, models: ModelCatalogToken },
  handler: async ({ caller }, { members, models }) => {
    const me = actingDid(caller);
    return { object: 'workspace' as const, actor: me, models: models.list(), assistants: members.ownedBy(me).map(memberRow) };
  },
});
