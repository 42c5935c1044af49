import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { ServerInfo } from '../../../core/server/server-info.js';
import { DiscoveryFactsToken } from '../../../core/plugin/discovery-facts.js';
import { LoomEngineToken } from '../../../core/engine/loom-engine.js';

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
          proof_kinds_accepted: Type.Array(Type.String(), { description: 'Proofs POST /v1/recredential accepts: recovery_code whenever the auth plugin is loaded; passkey once a relying party is declared.' }),
          passkey_rp: Type.Optional(Type.Object({ rp_id: Type.String() })),
          storage: Type.Object(
            {
              backend: Type.String(),
              shared_log: Type.Boolean({ description: 'Several servers serve this log (PostgreSQL).' }),
              leader: Type.Boolean({ description: 'This server runs the singleton loops (RECONCILE, TICK, CRON); always true for a log of its own.' }),
            },
            { description: 'The log this server serves.' },
          ),
          federation: Type.Object(
            {
              enabled: Type.Boolean(),
              pairs: Type.Integer({ description: 'Sync pairs registered on this instance.' }),
              pairs_by_state: Type.Optional(Type.Record(Type.String(), Type.Integer())),
              records_pulled_last_hour: Type.Optional(Type.Integer()),
            },
            { description: 'The federation summary; the federation plugin supplies it when loaded.' },
          ),
        },
        { $id: 'Health' },
      ),
    },
  },
  errors: [],
  inject: { info: ServerInfo, facts: DiscoveryFactsToken, engine: LoomEngineToken },
  handler: (_input, { info, facts, engine }) => ({
    status: 'ok' as const,
    version: info.version,
    instance_did: info.instanceDid,
    // The plugin that re-credentials owns these facts; with none loaded, nothing is accepted.
    proof_kinds_accepted: [] as string[],
    storage: { backend: engine.store.capabilities.backend, shared_log: engine.store.capabilities.sharedLog === true, leader: engine.leader },
    federation: { enabled: false, pairs: 0 },
    ...(facts.read('health') as { proof_kinds_accepted?: string[]; passkey_rp?: { rp_id: string }; federation?: { enabled: boolean; pairs: number } }),
  }),
});
