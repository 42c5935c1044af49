/**
 * The fleet's ingest gate. Records on th_fleet_control need an administrator
 * and a well-formed body (400 INVALID_SHAPE naming the field), and always
 * pass the freezes, so whoever froze can thaw. Every other write through the
 * API or from a peer is checked against the freezes and the emergency stop
 * (403 FORBIDDEN naming the freeze and the command that lifts it). The
 * engine's own writes (credentials, heartbeats, drift notes) and replays are
 * not stopped: RECONCILE checks the same state before it dispatches.
 * An administrator's configuration writes pass too, so nothing locks out the
 * configuration. Clients cannot write heartbeats (instance chrome on
 * th_instance_registry stays theirs): heartbeats are the engine's.
 */
import type { GateInput, IngestGate } from '../../core/access/ingest-gate.js';
import { isAdmin } from '../../core/access/scopes.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { TH_ENGINE_CONFIG, TH_FLEET_CONTROL, TH_INSTANCE_REGISTRY } from '../../core/records/reserved-threads.js';
import { parseFleetControl, refusalFor, type FleetControlState } from './fleet-control.js';
import { KIND_HEARTBEAT } from './instance-registry.js';

/** How far a fleet record's `at` may stray from the instance's clock. */
const CLOCK_SKEW_MS = 5 * 60_000;

export function fleetGate(state: () => FleetControlState, now: () => number): IngestGate {
  return {
    name: 'fleet.control',
    // Cheap before expensive: a frozen namespace is refused before any permission rule is evaluated.
    before: ['rules.permission'],
    check({ record, namespace, context }: GateInput) {
      if (context.via === 'engine' || context.via === 'replay') return;
      // Heartbeats are written by each instance's engine (and, later, replicated from peers); a client cannot pose as an instance.
      if (record.thread === TH_INSTANCE_REGISTRY && context.via === 'api' && (record.body['topic'] === 'heartbeat' || record.body['kind'] === KIND_HEARTBEAT)) {
        throw new LoomError('FORBIDDEN', 'heartbeats on th_instance_registry are written by each instance’s engine; a client cannot write one');
      }
      if (record.thread === TH_FLEET_CONTROL) {
        if (!isAdmin(context.caller.scopes)) throw new LoomError('FORBIDDEN', 'fleet control records (freeze, thaw, emergency stop) need the admin scope');
        if (record.act !== 'LEARN') throw new LoomError('INVALID_SHAPE', 'fleet control records are LEARN records');
        const control = parseFleetControl(record.body);
        if (typeof control === 'string') throw new LoomError('INVALID_SHAPE', `fleet control record: ${control}`);
        // Records replicated from peers keep the time they were written; only a client's fresh record is held to this clock.
        if (context.via === 'api' && Math.abs(Date.parse(control.at) - now()) > CLOCK_SKEW_MS) throw new LoomError('INVALID_SHAPE', `fleet control record: at ${control.at} is more than 5 minutes from this instance's clock`);
        return;
      }
      if (record.thread === TH_ENGINE_CONFIG && isAdmin(context.caller.scopes)) return;
      const refusal = refusalFor(state(), record.act, namespace, now());
      if (refusal !== null) throw new LoomError('FORBIDDEN', refusal);
    },
  };
}
