import { defineRoute } from '../../../core/plugin/route.js';
import { identityOf, IdentitySchema } from '../identity.js';

export const getIdentity = defineRoute({
  operationId: 'getIdentity',
  method: 'GET',
  path: '/v1/identity',
  summary: 'Who this request is authenticated as',
  description: 'Needs a live bearer but no scope. While auth enforcement is off, a request without a bearer answers is_authenticated false with every scope.',
  tags: ['auth'],
  auth: { scope: null },
  responses: { 200: { description: 'The caller.', schema: IdentitySchema } },
  errors: [],
  inject: {},
  handler: ({ caller }) => identityOf(caller),
});
