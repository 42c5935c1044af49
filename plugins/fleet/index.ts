/**
 * The fleet plugin: heartbeats on th_instance_registry and fleet control on
 * th_fleet_control (spec §6). On the extension points: two folds, one ingest
 * gate (freezes and the emergency stop), a dispatch hold on the rules
 * plugin's Dispatcher (RECONCILE's check), the heartbeat loop and four routes.
 */
import { Type, type Static } from 'typebox';
import { bindValue, resolve } from '../../core/di/token.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { ClockToken } from '../../core/engine/clock.js';
import { definePlugin, type LoomPlugin } from '../../core/plugin/plugin.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { IntervalLoop } from '../../core/engine/interval-loop.js';
import { DispatcherToken, EngineTelemetryToken } from '../rules/index.js';
import { fleetControlFold, freezesCovering } from './fleet-control.js';
import { fleetGate } from './fleet-gate.js';
import { FleetService, FleetServiceToken } from './fleet-service.js';
import { writeHeartbeat } from './heartbeat.js';
import { instanceRegistryFold } from './instance-registry.js';
import { FLEET_ROUTES } from './routes/fleet-routes.js';

export { FleetServiceToken, type FleetService } from './fleet-service.js';
export { FLEET_ROUTES } from './routes/fleet-routes.js';
export { KIND_FREEZE, KIND_THAW, KIND_EMERGENCY, FLEET_CONTROL_FOLD } from './fleet-control.js';
export { INSTANCE_REGISTRY_FOLD, KIND_HEARTBEAT } from './instance-registry.js';

export const FleetOptions = Type.Object(
  {
    /** Write heartbeats (off for an embedded instance that is no fleet member). @default true */
    heartbeat: Type.Boolean({ default: true }),
    /** Heartbeat interval. @default 15000 */
    heartbeatIntervalMs: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 15_000 }),
    /** The URL peers reach this instance at, reported in heartbeats. @default null */
    endpoint: Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], { default: null }),
  },
  { additionalProperties: false },
);
export type FleetOptions = Static<typeof FleetOptions>;

export const fleetPlugin: LoomPlugin<typeof FleetOptions> = definePlugin({
  name: 'fleet',
  tags: { fleet: 'Instances of a fleet: heartbeats, status and control (drain, freeze).' },
  version: '1.0.0',
  dependencies: ['ledger', 'rules'],
  options: FleetOptions,
  register(scope, options) {
    const now = resolve(scope.container, ClockToken);
    const writer = resolve(scope.container, RecordWriterToken);
    const dispatcher = resolve(scope.container, DispatcherToken);
    const telemetry = resolve(scope.container, EngineTelemetryToken);
    const info = resolve(scope.container, ServerInfo);
    const controlFold = scope.fold(fleetControlFold);
    const registryFold = scope.fold(instanceRegistryFold);
    const control = () => controlFold.state();
    scope.ingestGate(fleetGate(control, now));
    dispatcher.addHold('fleet', (job) => {
      const state = control();
      if (state.emergency) return `emergency stop active since ${state.emergency.since}`;
      const freeze = freezesCovering(state, job.namespace)[0];
      return freeze ? `namespace ${freeze.namespace} frozen (${freeze.level}) since ${freeze.since}` : null;
    });
    bindValue(scope.container, FleetServiceToken, new FleetService(writer, controlFold, registryFold, now));
    const startedAt = now();
    const heartbeat = new IntervalLoop(
      'fleet.heartbeat',
      options.heartbeatIntervalMs,
      () =>
        writeHeartbeat(writer, {
          instanceDid: info.instanceDid,
          endpoint: options.endpoint,
          version: info.version,
          intervalMs: options.heartbeatIntervalMs,
          startedAt,
          activeDispatches: () => dispatcher.activeDispatches,
          health: () => {
            const stats = dispatcher.stats();
            const recentError = telemetry.lastError !== null && Date.parse(telemetry.lastError.at) > Date.now() - options.heartbeatIntervalMs;
            return stats.queue_depth > stats.queue_capacity * 0.8 || recentError ? 'degraded' : 'ok';
          },
          now,
        }),
      (context, error) => {
        telemetry.error(context, error);
        scope.log.log('error', context, { error: error instanceof Error ? error.message : String(error) });
      },
      true,
    );
    if (options.heartbeat) scope.loop(heartbeat);
    for (const route of FLEET_ROUTES) scope.route(route);
    if (options.heartbeat) scope.capability('fleet.heartbeat', true);
    scope.capability('fleet.freeze', true);
    scope.capability('fleet.emergency_stop', true);
  },
});
