import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { AdapterRegistryToken } from '../dispatch/adapter.js';

export const listAdapters = defineRoute({
  operationId: 'listAdapters',
  method: 'GET',
  path: '/v1/adapters',
  summary: 'The dispatch adapters registered, in the order they are consulted',
  tags: ['engine'],
  auth: { scope: 'config:read' },
  responses: {
    200: {
      description: 'The fallback adapter (record) comes last and accepts every target.',
      schema: Type.Object(
        { object: Type.Literal('list'), data: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), owner: Type.String(), fallback: Type.Boolean() }, { $id: 'Adapter' })) },
        { $id: 'AdapterList' },
      ),
    },
  },
  errors: [],
  inject: { adapters: AdapterRegistryToken },
  handler: (_input, { adapters }) => ({ object: 'list' as const, data: adapters.list() }),
});
