/**
 * instance_registry: the latest heartbeat of every instance (spec §6: a DO
 * with body.topic = heartbeat on th_instance_registry, every 15 s by default).
 * An instance is live while its latest heartbeat is younger than three
 * intervals.
 */
import type { Fold } from '../../core/folds/fold.js';
import { TH_INSTANCE_REGISTRY } from '../../core/records/reserved-threads.js';

export const INSTANCE_REGISTRY_FOLD = 'instance_registry';
export const KIND_HEARTBEAT = 'core.instance.heartbeat.v1';

export interface Heartbeat {
  instance_did: string;
  endpoint: string | null;
  version: string;
  uptime_secs: number;
  active_dispatches: number;
  health: string;
  at: string;
  interval_secs: number;
  record_id: string;
  sequence: number;
  clock: number;
}

export interface InstanceRegistryState {
  instances: Map<string, Heartbeat>;
}

export const instanceRegistryFold: Fold<InstanceRegistryState, { instances: Heartbeat[] }> = {
  name: INSTANCE_REGISTRY_FOLD,
  scope: 'global',
  description: 'The latest heartbeat per instance, from th_instance_registry.',
  threads: [TH_INSTANCE_REGISTRY],
  initial: () => ({ instances: new Map() }),
  apply(state, { sequence, record }) {
    const b = record.body;
    if (record.thread !== TH_INSTANCE_REGISTRY || record.act !== 'DO' || b['topic'] !== 'heartbeat') return state;
    const previous = state.instances.get(record.actor);
    if (previous && previous.clock >= record.clock) return state;
    state.instances.set(record.actor, {
      instance_did: record.actor,
      endpoint: typeof b['endpoint'] === 'string' ? b['endpoint'] : null,
      version: typeof b['version'] === 'string' ? b['version'] : 'unknown',
      uptime_secs: typeof b['uptime_secs'] === 'number' ? b['uptime_secs'] : 0,
      active_dispatches: typeof b['active_dispatches'] === 'number' ? b['active_dispatches'] : 0,
      health: typeof b['health'] === 'string' ? b['health'] : 'unknown',
      at: typeof b['at'] === 'string' ? b['at'] : '',
      interval_secs: typeof b['interval_secs'] === 'number' ? b['interval_secs'] : 15,
      record_id: record.id,
      sequence,
      clock: record.clock,
    });
    return state;
  },
  value: (state) => ({ instances: [...state.instances.values()].map((h) => ({ ...h })) }),
};

export function isLive(heartbeat: Heartbeat, now: number): boolean {
  const at = Date.parse(heartbeat.at);
  return !Number.isNaN(at) && now - at <= heartbeat.interval_secs * 3000;
}
