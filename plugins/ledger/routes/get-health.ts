import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { ServerInfo } from '../../../core/server/server-info.js';
import { DiscoveryFactsToken } from '../../../core/plugin/discovery-facts.js';
import { EngineStatusToken } from '../../../core/engine/engine-status.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { StorageProbeToken } from '../storage-probe-token.js';
import { ConsumerStatusSchema } from '../consumer-status-schema.js';

const ProbeSchema = Type.Object(
  {
    ok: Type.Boolean(),
    checked_at: Type.String(),
    read_ms: Type.Union([Type.Number(), Type.Null()], { description: 'Time to read the log head.' }),
    write_ms: Type.Union([Type.Number(), Type.Null()], { description: 'Time to write and fsync a file in the data directory (null: no data directory).' }),
    error: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'StorageProbe' },
);

const Readiness = Type.Object({ status: Type.Literal('ok'), storage: ProbeSchema }, { $id: 'Readiness' });

export const getLiveness = defineRoute({
  operationId: 'getLiveness',
  method: 'GET',
  path: '/health/live',
  summary: 'Liveness: the process answers',
  description: 'For an orchestrator\'s liveness probe: 200 whenever the event loop answers; it checks nothing else, so a slow disk does not get the process restarted.',
  tags: ['ledger'],
  auth: 'none',
  responses: { 200: { description: 'Alive.', schema: Type.Object({ status: Type.Literal('ok') }, { $id: 'Liveness' }) } },
  errors: [],
  inject: {},
  handler: () => ({ status: 'ok' as const }),
});

export const getReadiness = defineRoute({
  operationId: 'getReadiness',
  method: 'GET',
  path: '/health/ready',
  summary: 'Readiness: the log can be read and the disk written',
  description: 'For an orchestrator\'s readiness probe: 200 when a read of the log and a write (fsynced) to the data directory both succeed within 3 s, else 503 SERVICE_UNAVAILABLE whose envelope carries status "unavailable" and the probe. Cached for 2 s.',
  tags: ['ledger'],
  auth: 'none',
  responses: { 200: { description: 'Ready.', schema: Readiness } },
  // Not ready: 503 SERVICE_UNAVAILABLE, the envelope carrying status "unavailable" and the probe as storage.
  errors: ['SERVICE_UNAVAILABLE'],
  inject: { probe: StorageProbeToken },
  handler: async (_input, { probe }) => {
    const storage = await probe.check();
    if (!storage.ok) throw new LoomError('SERVICE_UNAVAILABLE', `not ready: ${storage.error}`, { status: 'unavailable', storage });
    return { status: 'ok' as const, storage };
  },
});

export const getHealth = defineRoute({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  summary: 'Health and identity of this instance',
  description: 'status is ok when the storage probe (a read of the log, a write to the data directory) succeeds, else unavailable with status 503. /health/live and /health/ready split liveness from readiness for orchestrators.',
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
              probe: ProbeSchema,
            },
            { description: 'The log this server serves.' },
          ),
          consumers: Type.Optional(Type.Array(ConsumerStatusSchema, { description: 'Every log consumer of this server: lag, state and last error.' })),
          watchers: Type.Optional(Type.Object({ open: Type.Integer(), max: Type.Integer() }, { description: 'Thread-watch feeds open, and the cap.' })),
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
  // The storage probe failed: 503 SERVICE_UNAVAILABLE, the envelope carrying the whole health answer (status "unavailable").
  errors: ['SERVICE_UNAVAILABLE'],
  inject: { info: ServerInfo, facts: DiscoveryFactsToken, engine: EngineStatusToken, probe: StorageProbeToken },
  handler: async (_input, { info, facts, engine, probe }) => {
    const result = await probe.check();
    const body = {
    status: result.ok ? ('ok' as const) : ('unavailable' as const),
    version: info.version,
    instance_did: info.instanceDid,
    // The plugin that re-credentials owns these facts; with none loaded, nothing is accepted.
    proof_kinds_accepted: [] as string[],
    storage: { backend: engine.backend, shared_log: engine.sharedLog, leader: engine.leader, probe: result },
    federation: { enabled: false, pairs: 0 },
    ...(facts.read('health') as { proof_kinds_accepted?: string[]; passkey_rp?: { rp_id: string }; federation?: { enabled: boolean; pairs: number } }),
    };
    if (!result.ok) throw new LoomError('SERVICE_UNAVAILABLE', `storage probe failed: ${result.error}`, body);
    return body;
  },
});
