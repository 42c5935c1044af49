import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { SelfServiceToken } from '../self-service.js';

export const listSelfBindings = defineRoute({
  operationId: 'listSelfBindings',
  method: 'GET',
  path: '/v1/self/bindings',
  summary: 'Your bindings (never their material)',
  tags: ['auth'],
  auth: { scope: null },
  responses: {
    200: {
      description: 'Oldest first.',
      schema: Type.Object(
        { object: Type.Literal('list'), data: Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), created_at: Type.Union([Type.String(), Type.Null()]) })) },
        { $id: 'BindingList' },
      ),
    },
  },
  errors: [],
  inject: { self: SelfServiceToken },
  handler: ({ caller }, { self }) => self.bindings(caller),
});
