import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { SelfServiceToken } from '../self-service.js';

export const deleteSelfBinding = defineRoute({
  operationId: 'deleteSelfBinding',
  method: 'DELETE',
  path: '/v1/self/bindings/{id}',
  summary: 'Remove one of your bindings',
  tags: ['auth'],
  auth: { scope: null },
  request: { params: Type.Object({ id: Type.String({ maxLength: 64 }) }) },
  responses: {
    200: {
      description: 'Removed.',
      schema: Type.Object({ object: Type.Literal('binding'), id: Type.String(), kind: Type.String(), removed: Type.Literal(true) }, { $id: 'BindingRemoved' }),
    },
  },
  errors: ['NOT_FOUND'],
  inject: { self: SelfServiceToken },
  handler: ({ params, caller }, { self }) => self.removeBinding(caller, params.id),
});
