import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { ServerInfo } from '../../../core/server/server-info.js';

export const getHealth = defineRoute({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  summary: 'Liveness and identity of this instance',
  tags: ['ledger'],
  auth: 'none',
  responses: {
    200: {
      description: 'The instance is up.',
      schema: Type.Object(
        {
          status: Type.Literal('ok'),
          version: Type.String(),
          instance_did: Type.String(),
          proof_kinds_accepted: Type.Array(Type.String()),
          federation: Type.Object({ enabled: Type.Boolean(), pairs: Type.Integer() }),
        },
        { $id: 'Health' },
      ),
    },
  },
  errors: [],
  inject: { info: ServerInfo },
  handler: (_input, { info }) => ({
    status: 'ok' as const,
    version: info.version,
    instance_did: info.instanceDid,
    // Recovery codes are always accepted (spec §4.1); account and passkey once declared.
    proof_kinds_accepted: ['recovery_code'],
    federation: { enabled: false, pairs: 0 },
  }),
});
