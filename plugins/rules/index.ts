/**
 * The rules plugin: the engine acting on what it ingests (spec §1, §2.9).
 * On the extension points: five configuration topics (permission_rule,
 * permissions, routing_rule, event_trigger), two ingest gates (rule records
 * compile; permission rules), the dispatches fold, a log consumer, RECONCILE
 * (routing, match triggers, dispatch through adapters), and two engine loops:
 * TICK (drift) and the scheduler (schedule triggers, CRON maintenance). Later plugins
 * extend it through the tokens it exposes: AdapterRegistry (how a dispatch
 * reaches an actor), MaintenanceRegistry (CRON jobs), Dispatcher (holds such
 * as a fleet freeze, and dispatching).
 */
import { resolve, bindValue } from '../../core/di/token.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { ClockToken } from '../../core/engine/clock.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { SYSTEM } from '../../core/access/caller.js';
import { Config, type ConfigTopic } from '../../core/folds/config/config-topic.js';
import { definePlugin, type LoomPlugin } from '../../core/plugin/plugin.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import { createEnvironments } from './cel/cel-environments.js';
import { ExpressionCache, ExpressionCacheToken } from './cel/expression-cache.js';
import { RulesOptions } from './config.js';
import { AdapterRegistry, AdapterRegistryToken, recordAdapter } from './dispatch/adapter.js';
import { dispatchFold, DispatchFoldToken } from './dispatch/dispatch-fold.js';
import { Dispatcher, DispatcherToken } from './dispatch/dispatcher.js';
import { EngineHealth, EngineHealthToken } from './engine-health.js';
import { EngineTelemetry, EngineTelemetryToken } from './engine-telemetry.js';
import { IntervalLoop } from '../../core/engine/interval-loop.js';
import { MaintenanceRegistry, MaintenanceRegistryToken } from './maintenance.js';
import { PermissionGate } from './permission-gate.js';
import { ReconcileConsumer } from './reconcile-consumer.js';
import { ruleConfigGate } from './rule-config-gate.js';
import { RoutingRules, RoutingRulesToken } from './routing-rules.js';
import { Scheduler } from './scheduler.js';
import { DriftDetector } from './tick.js';
import { eventTriggerTopic, permissionRuleTopic, permissionsTopic, routingRuleTopic } from './topics.js';
import { CompiledTriggers, CompiledTriggersToken } from './triggers/compiled-triggers.js';
import { TriggerGovernor, TriggerGovernorToken } from './triggers/trigger-governor.js';
import { TriggerLineage } from './triggers/trigger-lineage.js';
import { createDispatch } from './routes/create-dispatch.js';
import { getEngineHealth } from './routes/get-engine-health.js';
import { getExpressionCacheStats } from './routes/get-expression-cache-stats.js';
import { listAdapters } from './routes/list-adapters.js';
import { listRoutingRules } from './routes/list-routing-rules.js';
import { listTriggers } from './routes/list-triggers.js';

export { RulesOptions } from './config.js';
export { AdapterRegistryToken, type AdapterRegistry, type DispatchAdapter, type Dispatch } from './dispatch/adapter.js';
export { DispatcherToken, type Dispatcher, type DispatchHold, type DispatchJob } from './dispatch/dispatcher.js';
export { manualDispatch, type ManualDispatch, type ManualDispatchDeps, type ManualDispatchRequest } from './dispatch/manual-dispatch.js';
export { MaintenanceRegistryToken, type MaintenanceRegistry, type MaintenanceJob } from './maintenance.js';
export { ExpressionCacheToken, type ExpressionCache } from './cel/expression-cache.js';
export { EngineTelemetryToken } from './engine-telemetry.js';
export { ENGINE_ACTOR, KIND_DISPATCH, KIND_DISPATCH_FAILED, KIND_DRIFT, KIND_TRIGGER_OUTCOME } from './dispatch/dispatch-kinds.js';
export { DISPATCH_FOLD, type DispatchState, type DispatchEntry } from './dispatch/dispatch-fold.js';
export { permissionsTopic, eventTriggerTopic, TRIGGER_DEFAULTS } from './topics.js';

export const RULES_ROUTES = [getEngineHealth, getExpressionCacheStats, listRoutingRules, listAdapters, listTriggers, createDispatch] as const;

export const rulesPlugin: LoomPlugin<typeof RulesOptions> = definePlugin({
    name: 'rules',
    tags: { engine: 'The rules engine: routing and trigger rules, dispatches, the work loop (RECONCILE, TICK) and engine status.' },
    version: '1.0.0',
    dependencies: ['ledger'],
    options: RulesOptions,
    register(scope, options) {
      // The clock every loop, rule and trigger reads.
      const now = resolve(scope.container, ClockToken);
      const config = resolve(scope.container, Config);
      const writer = resolve(scope.container, RecordWriterToken);
      const reader = resolve(scope.container, RecordReaderToken);
      const telemetry = new EngineTelemetry();
      const onError = (context: string, error: unknown) => {
        telemetry.error(context, error);
        scope.log.log('error', context, { error: error instanceof Error ? error.message : String(error) });
      };
      const cache = new ExpressionCache(createEnvironments(), options.expressionCacheCapacity);
      const permissionTopic = permissionRuleTopic(cache);
      const routingTopic = routingRuleTopic(cache);
      const ruleTopics: ConfigTopic<any>[] = [permissionTopic, permissionsTopic, routingTopic, eventTriggerTopic];
      for (const topic of ruleTopics) scope.configTopic(topic);
      const dispatchState = scope.fold(dispatchFold);

      const adapters = new AdapterRegistry();
      adapters.setFallback(recordAdapter, 'rules');
      const maintenance = new MaintenanceRegistry();
      const dispatcher = new Dispatcher(writer, dispatchState, adapters, scope.log, onError, {
        concurrency: options.reconcileConcurrency,
        queueCapacity: options.reconcileQueueCapacity,
        now,
      });
      const dispatches = () => dispatchState.state();
      const governor = new TriggerGovernor(dispatches, now);
      const lineage = new TriggerLineage(async (id) => (await reader.get(SYSTEM, id))?.record);

      const compiledTriggers = new CompiledTriggers(config);
      const triggers = () => compiledTriggers.inForce();

      const permissions = new PermissionGate(config, permissionTopic, cache, telemetry, scope.log, now);
      const reconcile = new ReconcileConsumer({
        config,
        cache,
        dispatcher,
        governor,
        lineage,
        telemetry,
        log: scope.log,
        routingTopic,
        triggers,
        now,
      });
      const scheduler = new Scheduler({ dispatcher, governor, maintenance, telemetry, log: scope.log, triggers, now, onError });
      const drift = new DriftDetector(dispatchState, dispatcher, scope.log, now);
      const schedulerLoop = new IntervalLoop('rules.scheduler', options.schedulerIntervalMs, () => scheduler.step(), onError, false, true);
      const tickLoop = new IntervalLoop('rules.tick', options.tickIntervalMs, () => drift.step(), onError, false, true);

      const store = resolve(scope.container, RecordStore);
      maintenance.register(
        { name: 'rules.store-optimise', cadence: 'hourly', description: 'Storage housekeeping: SQLite PRAGMA optimize and a WAL checkpoint; LevelDB compaction.', run: () => store.optimize() },
        'rules',
      );

      const routingRules = new RoutingRules(config, routingTopic);
      const health = new EngineHealth({
        dispatcher,
        telemetry,
        reconcile,
        tickLoop,
        drift,
        scheduler,
        maintenance,
        triggers: compiledTriggers,
        permissions,
        routingRules,
        cache,
      });
      // What the routes inject, each its own token (no bag): the plugin's own, not exposed.
      bindValue(scope.container, RoutingRulesToken, routingRules);
      bindValue(scope.container, CompiledTriggersToken, compiledTriggers);
      bindValue(scope.container, DispatchFoldToken, dispatchState);
      bindValue(scope.container, TriggerGovernorToken, governor);
      bindValue(scope.container, EngineHealthToken, health);
      scope.expose(ExpressionCacheToken, cache);
      scope.expose(AdapterRegistryToken, adapters);
      scope.expose(MaintenanceRegistryToken, maintenance);
      scope.expose(DispatcherToken, dispatcher);
      scope.expose(EngineTelemetryToken, telemetry);

      scope.ingestGate(ruleConfigGate(ruleTopics));
      scope.ingestGate(permissions);
      // Checkpoint `rules.reconcile`: <dataDir>/plugins/rules/reconcile-checkpoint.json, or the shared store.
      reconcile.attach(scope.consume(reconcile));
      scope.loop(schedulerLoop);
      scope.loop(tickLoop);
      for (const route of RULES_ROUTES) scope.route(route);

      scope.onStart(() => {
        scope.onStop(config.watch(permissionTopic, () => permissions.invalidate()));
        scope.onStop(config.watch(routingTopic, () => reconcile.invalidateRules()));
        scope.onStop(config.watch(eventTriggerTopic, () => compiledTriggers.invalidate()));
      });

      scope.capability('engine.rules', true);
      scope.capability('engine.permission_rules', true);
      scope.capability('engine.routing', true);
      scope.capability('engine.event_triggers', true);
      scope.capability('engine.reconcile', true);
      scope.capability('engine.tick', true);
      scope.capability('engine.cron', true);
    },
});
