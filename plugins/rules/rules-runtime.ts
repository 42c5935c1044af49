/**
 * Everything the rules plugin runs, in one object its routes inject: the
 * expression cache, the dispatcher, the loops and their counters.
 */
import { token } from '../../core/di/token.js';
import type { Config, Entry } from '../../core/folds/config/config-topic.js';
import type { ExpressionCache } from './cel/expression-cache.js';
import type { AdapterRegistry } from './dispatch/adapter.js';
import type { Dispatcher } from './dispatch/dispatcher.js';
import type { EngineTelemetry } from './engine-telemetry.js';
import type { IntervalLoop } from '../../core/engine/interval-loop.js';
import type { MaintenanceRegistry } from './maintenance.js';
import type { PermissionGate } from './permission-gate.js';
import type { ReconcileConsumer } from './reconcile-consumer.js';
import type { Scheduler } from './scheduler.js';
import type { DriftDetector } from './tick.js';
import type { CompiledTrigger, RoutingRule } from './topics.js';
import type { ConfigTopic } from '../../core/folds/config/config-topic.js';
import type { TriggerGovernor } from './triggers/trigger-governor.js';
import type { TriggerLineage } from './triggers/trigger-lineage.js';

export interface RulesRuntime {
  readonly config: Config;
  readonly cache: ExpressionCache;
  readonly adapters: AdapterRegistry;
  readonly dispatcher: Dispatcher;
  readonly telemetry: EngineTelemetry;
  readonly maintenance: MaintenanceRegistry;
  readonly permissions: PermissionGate;
  readonly reconcile: ReconcileConsumer;
  readonly scheduler: Scheduler;
  readonly schedulerLoop: IntervalLoop;
  readonly drift: DriftDetector;
  readonly tickLoop: IntervalLoop;
  readonly governor: TriggerGovernor;
  readonly lineage: TriggerLineage;
  readonly routingTopic: ConfigTopic<RoutingRule>;
  /** The triggers in force, compiled, with their provenance. */
  triggers(): ReadonlyArray<Entry<CompiledTrigger>>;
  readonly now: () => number;
  /** The dispatches fold's state. */
  dispatches(): import('./dispatch/dispatch-fold.js').DispatchState;
}

export const RulesRuntimeToken = token<RulesRuntime>('rules.RulesRuntime');
