/**
 * The engine health report (GET /v1/engine/health): one snapshot of the
 * counters every rules loop keeps, so the route injects this and not the
 * dozen parts it reads.
 */
import { token } from '../../core/di/token.js';
import type { IntervalLoop } from '../../core/engine/interval-loop.js';
import type { ExpressionCache } from './cel/expression-cache.js';
import type { Dispatcher } from './dispatch/dispatcher.js';
import type { EngineTelemetry } from './engine-telemetry.js';
import type { MaintenanceRegistry } from './maintenance.js';
import type { PermissionGate } from './permission-gate.js';
import type { ReconcileConsumer } from './reconcile-consumer.js';
import type { RoutingRules } from './routing-rules.js';
import type { Scheduler } from './scheduler.js';
import type { DriftDetector } from './tick.js';
import type { CompiledTriggers } from './triggers/compiled-triggers.js';

export interface EngineHealthParts {
  readonly dispatcher: Dispatcher;
  readonly telemetry: EngineTelemetry;
  readonly reconcile: ReconcileConsumer;
  readonly tickLoop: IntervalLoop;
  readonly drift: DriftDetector;
  readonly scheduler: Scheduler;
  readonly maintenance: MaintenanceRegistry;
  readonly triggers: CompiledTriggers;
  readonly permissions: PermissionGate;
  readonly routingRules: RoutingRules;
  readonly cache: ExpressionCache;
}

export class EngineHealth {
  constructor(private readonly parts: EngineHealthParts) {}

  report() {
    const { dispatcher, telemetry: t, reconcile, tickLoop, drift, scheduler, maintenance, triggers, permissions, routingRules, cache } = this.parts;
    const dispatch = dispatcher.stats();
    const recentError = t.lastError !== null && Date.parse(t.lastError.at) > Date.now() - tickLoop.interval;
    return {
      object: 'engine_health' as const,
      status: dispatch.queue_depth > dispatch.queue_capacity * 0.8 || recentError ? ('degraded' as const) : ('ok' as const),
      uptime_secs: Math.floor((Date.now() - t.startedAt) / 1000),
      reconcile: { considered: reconcile.considered, routed: reconcile.routed, ...dispatch, checkpoint: reconcile.checkpoint() },
      tick: { interval_secs: tickLoop.interval / 1000, runs: tickLoop.runs, last_run_at: tickLoop.lastRunAt, drift_noted: drift.noted },
      cron: { hourly_last_run_at: scheduler.hourlyLastRunAt, daily_last_run_at: scheduler.dailyLastRunAt, jobs: maintenance.list() },
      triggers: { loaded: triggers.inForce().length, firings: t.triggerFirings, suppressions: { ...t.triggerSuppressions } },
      permissions: {
        enabled: permissions.enabled(),
        rules: permissions.ordered().length,
        denials: t.permissionDenials,
        evaluation_errors: t.permissionEvaluationErrors,
      },
      routing: { rules: routingRules.all().filter((rule) => rule.enabled).length, evaluation_errors: t.routingEvaluationErrors },
      expression_cache: cache.stats(),
      errors: { count: t.errors, last: t.lastError },
    };
  }
}

export const EngineHealthToken = token<EngineHealth>('rules.EngineHealth');
