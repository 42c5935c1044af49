import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { EngineHealthToken } from '../engine-health.js';

const Counter = Type.Integer({ minimum: 0 });
const When = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const EngineHealthSchema = Type.Object(
  {
    object: Type.Literal('engine_health'),
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')], { description: 'degraded while the dispatch queue is over 80% full or an error happened in the last TICK interval.' }),
    uptime_secs: Counter,
    reconcile: Type.Object({
      considered: Counter,
      routed: Counter,
      queue_depth: Counter,
      queue_capacity: Counter,
      max_queue_depth: Counter,
      in_flight: Counter,
      max_in_flight: Counter,
      concurrency: Counter,
      dispatched: Counter,
      delivered: Counter,
      delivery_failures: Counter,
      held: Counter,
      duplicates_skipped: Counter,
      checkpoint: Counter,
    }),
    tick: Type.Object({ interval_secs: Type.Number(), runs: Counter, last_run_at: When, drift_noted: Counter }),
    cron: Type.Object({
      hourly_last_run_at: When,
      daily_last_run_at: When,
      jobs: Type.Array(
        Type.Object({
          name: Type.String(),
          cadence: Type.Union([Type.Literal('hourly'), Type.Literal('daily')]),
          last_run_at: When,
          last_duration_ms: Type.Union([Counter, Type.Null()]),
          last_result: Type.Union([Type.String(), Type.Null()]),
          last_error: Type.Union([Type.String(), Type.Null()]),
          runs: Counter,
        }),
      ),
    }),
    triggers: Type.Object({
      loaded: Counter,
      firings: Counter,
      suppressions: Type.Object({ cooldown: Counter, max_concurrent: Counter, causal_chain: Counter, held: Counter }),
    }),
    permissions: Type.Object({ enabled: Type.Boolean(), rules: Counter, denials: Counter, evaluation_errors: Counter }),
    routing: Type.Object({ rules: Counter, evaluation_errors: Counter }),
    expression_cache: Type.Object({
      hits: Counter,
      misses: Counter,
      compile_errors: Counter,
      hit_rate_pct: Type.Number(),
      avg_compile_micros: Type.Number(),
      size: Counter,
      capacity: Counter,
    }),
    errors: Type.Object({ count: Counter, last: Type.Union([Type.Object({ at: Type.String(), context: Type.String(), message: Type.String() }), Type.Null()]) }),
  },
  { $id: 'EngineHealth' },
);

export const getEngineHealth = defineRoute({
  operationId: 'getEngineHealth',
  method: 'GET',
  path: '/v1/engine/health',
  summary: 'Engine loop health: reconcile queue and dispatches, TICK and CRON runs, triggers, rule denials, expression cache, errors',
  description: 'Counters are in memory since start (they reset on restart); the facts they count are records (dispatches, drift notes).',
  tags: ['engine'],
  auth: { scope: 'config:read' },
  responses: { 200: { description: 'Engine health counters.', schema: EngineHealthSchema } },
  errors: [],
  inject: { health: EngineHealthToken },
  handler: (_input, { health }) => health.report(),
});
