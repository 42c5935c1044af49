import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { SelfServiceToken } from '../self-service.js';

export const listSelfCredentials = defineRoute({
  operationId: 'listSelfCredentials',
  method: 'GET',
  path: '/v1/self/credentials',
  summary: 'The live bearers your principal holds',
  description: 'last_used_at is what this process has seen since it started (it is not recorded: a read never writes). current marks the bearer of this request.',
  tags: ['auth'],
  auth: { scope: null },
  responses: {
    200: {
      description: 'Live bearers.',
      schema: Type.Object(
        {
          object: Type.Literal('list'),
          data: Type.Array(
            Type.Object({
              bearer_id: Type.String(),
              sa_id: Type.String(),
              expires_at: Type.Union([Type.String(), Type.Null()]),
              last_used_at: Type.Union([Type.String(), Type.Null()]),
              via: Type.String(),
              current: Type.Boolean(),
            }),
          ),
        },
        { $id: 'SelfCredentialList' },
      ),
    },
  },
  errors: [],
  inject: { self: SelfServiceToken },
  handler: ({ caller }, { self }) => self.credentialsOf(caller),
});
