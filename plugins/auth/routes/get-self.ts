import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { SelfServiceToken } from '../self-service.js';

export const getSelf = defineRoute({
  operationId: 'getSelf',
  method: 'GET',
  path: '/v1/self',
  summary: 'Your principal: label, standing, bindings and the proofs this instance accepts',
  description: 'Needs a live bearer and no scope. standing is admin, member (a membership grant), delegate (a grant without a label) or service_account.',
  tags: ['auth'],
  auth: { scope: null },
  responses: {
    200: {
      description: 'About the bearer\'s principal.',
      schema: Type.Object(
        {
          object: Type.Literal('self'),
          principal: Type.String(),
          label: Type.Union([Type.String(), Type.Null()]),
          standing: Type.Union([Type.Literal('admin'), Type.Literal('member'), Type.Literal('delegate'), Type.Literal('service_account')]),
          service_account_id: Type.Union([Type.String(), Type.Null()]),
          grant: Type.Union([Type.Object({ grant_id: Type.String(), scopes: Type.Array(Type.String()), expires_at: Type.String() }), Type.Null()]),
          bindings: Type.Object({ recovery_code: Type.Boolean(), passkey: Type.Boolean(), account: Type.Boolean() }),
          proof_kinds_accepted: Type.Array(Type.String()),
        },
        { $id: 'Self' },
      ),
    },
  },
  errors: [],
  inject: { self: SelfServiceToken },
  handler: ({ caller }, { self }) => self.view(caller),
});
