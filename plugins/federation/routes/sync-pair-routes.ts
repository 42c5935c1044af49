/** The sync pair routes (spec §4.13, HTTP view of §2.8): list, create, show, delete, pause, resume, kick, stats. */
import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { SyncServiceToken } from '../federation-token.js';
import { CreatePairBody, PairIdParams, PairSchema } from './schemas.js';

const PairAnswer = { 200: { description: 'The pair.', schema: PairSchema } } as const;

export const listSyncPairs = defineRoute({
  operationId: 'listSyncPairs',
  method: 'GET',
  path: '/v1/sync/pairs',
  summary: 'Sync pairs on this instance',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  responses: { 200: { description: 'Every pair.', schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(PairSchema) }, { $id: 'SyncPairList' }) } },
  errors: [],
  inject: { sync: SyncServiceToken },
  handler: async (_input, { sync }) => ({ object: 'list' as const, data: await sync.list() }),
});

export const createSyncPair = defineRoute({
  operationId: 'createSyncPair',
  method: 'POST',
  path: '/v1/sync/pairs',
  summary: 'Pull a peer into this instance',
  description:
    'Creates a pair on this (target) instance that pulls the peer (source): its changes feed, consent-filtered for target_namespace, verified ' +
    'against peer_did (the manifest, then every page signature). peer_token is a bearer of the source and is never echoed. ' +
    '`warning` reports a loopback misconfiguration (pairing with this instance itself). An instance holds at most `maxPairs` pairs ' +
    '(federation option, default 100); one more is refused with PAIR_LIMIT_REACHED.',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { body: CreatePairBody },
  responses: { 201: { description: 'The pair, started.', schema: Type.Intersect([PairSchema, Type.Object({ warning: Type.Optional(Type.String()) })], { $id: 'CreatedSyncPair' }) } },
  errors: ['INVALID_SHAPE', 'PAIR_LIMIT_REACHED'],
  inject: { sync: SyncServiceToken },
  handler: async ({ body, caller }, { sync }) => {
    const { pair, warning } = await sync.create(caller, body);
    return Reply.json(201, warning ? { ...pair, warning } : pair);
  },
});

export const getSyncPair = defineRoute({
  operationId: 'getSyncPair',
  method: 'GET',
  path: '/v1/sync/pairs/{id}',
  summary: 'A sync pair: state, cursor, retries, last error',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: PairIdParams },
  responses: PairAnswer,
  errors: ['PAIR_NOT_FOUND'],
  inject: { sync: SyncServiceToken },
  handler: ({ params }, { sync }) => sync.get(params.id),
});

export const deleteSyncPair = defineRoute({
  operationId: 'deleteSyncPair',
  method: 'DELETE',
  path: '/v1/sync/pairs/{id}',
  summary: 'Remove a sync pair (records already pulled stay)',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: PairIdParams },
  responses: { 200: { description: 'Removed.', schema: Type.Object({ object: Type.Literal('sync_pair'), pair_id: Type.String(), deleted: Type.Literal(true) }) } },
  errors: ['PAIR_NOT_FOUND'],
  inject: { sync: SyncServiceToken },
  handler: async ({ params, caller }, { sync }) => {
    await sync.remove(caller, params.id);
    return { object: 'sync_pair' as const, pair_id: params.id, deleted: true as const };
  },
});

export const pauseSyncPair = defineRoute({
  operationId: 'pauseSyncPair',
  method: 'POST',
  path: '/v1/sync/pairs/{id}/pause',
  summary: 'Pause a pair: pulls stop, the cursor is saved',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: PairIdParams },
  responses: PairAnswer,
  errors: ['PAIR_NOT_FOUND'],
  inject: { sync: SyncServiceToken },
  handler: ({ params, caller }, { sync }) => sync.pause(caller, params.id),
});

export const resumeSyncPair = defineRoute({
  operationId: 'resumeSyncPair',
  method: 'POST',
  path: '/v1/sync/pairs/{id}/resume',
  summary: 'Resume a paused pair from its saved cursor',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: PairIdParams },
  responses: PairAnswer,
  errors: ['PAIR_NOT_FOUND'],
  inject: { sync: SyncServiceToken },
  handler: ({ params, caller }, { sync }) => sync.resume(caller, params.id),
});

export const kickSyncPair = defineRoute({
  operationId: 'kickSyncPair',
  method: 'POST',
  path: '/v1/sync/pairs/{id}/kick',
  summary: 'Pull now (ends a poll interval or a backoff wait, re-checks the manifest)',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: PairIdParams },
  responses: PairAnswer,
  errors: ['PAIR_NOT_FOUND'],
  inject: { sync: SyncServiceToken },
  handler: ({ params, caller }, { sync }) => sync.kick(caller, params.id),
});

export const getSyncPairStats = defineRoute({
  operationId: 'getSyncPairStats',
  method: 'GET',
  path: '/v1/sync/pairs/{id}/stats',
  summary: "A pair's rolling rate, latency histogram, errors, poll state and counters (in memory, last hour)",
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  request: { params: PairIdParams },
  responses: { 200: { description: 'Stats.', schema: Type.Object({ object: Type.Literal('sync_pair_stats'), pair_id: Type.String() }, { additionalProperties: true, $id: 'SyncPairStats' }) } },
  errors: ['PAIR_NOT_FOUND'],
  inject: { sync: SyncServiceToken },
  handler: ({ params }, { sync }) => sync.stats(params.id),
});

export const getSyncHealth = defineRoute({
  operationId: 'getSyncHealth',
  method: 'GET',
  path: '/v1/sync/health',
  summary: 'Sync health across pairs (in memory, 1-hour rolling window, reset on restart)',
  tags: ['federation'],
  auth: { scope: 'federation:manage' },
  responses: {
    200: {
      description: 'Health.',
      schema: Type.Object(
        {
          object: Type.Literal('sync_health'),
          pairs_total: Type.Integer(),
          pairs_by_state: Type.Record(Type.String(), Type.Integer()),
          records_pulled_last_hour: Type.Integer(),
          mean_delivery_latency_ms: Type.Union([Type.Number(), Type.Null()]),
          p95_delivery_latency_ms: Type.Union([Type.Number(), Type.Null()]),
          slowest_pairs: Type.Array(Type.Unknown()),
          most_errored_pairs: Type.Array(Type.Unknown()),
          drift_alerts: Type.Array(Type.Unknown()),
        },
        { additionalProperties: true, $id: 'SyncHealth' },
      ),
    },
  },
  errors: [],
  inject: { sync: SyncServiceToken },
  handler: (_input, { sync }) => sync.health(),
});

export const SYNC_PAIR_ROUTES = [listSyncPairs, createSyncPair, getSyncPair, deleteSyncPair, pauseSyncPair, resumeSyncPair, kickSyncPair, getSyncPairStats, getSyncHealth] as const;
