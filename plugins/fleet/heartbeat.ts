/**
 * The heartbeat (spec §6): this instance's DO on th_instance_registry every
 * interval, written by the engine as the instance DID: version, endpoint,
 * uptime, dispatches in flight and health.
 */
import { SYSTEM } from '../../core/access/caller.js';
import type { RecordWriter } from '../../core/engine/record-writer.js';
import { TH_INSTANCE_REGISTRY } from '../../core/records/reserved-threads.js';
import { KIND_HEARTBEAT } from './instance-registry.js';

export interface HeartbeatFacts {
  readonly instanceDid: string;
  readonly endpoint: string | null;
  readonly version: string;
  readonly intervalMs: number;
  readonly startedAt: number;
  activeDispatches(): number;
  health(): 'ok' | 'degraded';
  now(): number;
}

export async function writeHeartbeat(writer: RecordWriter, facts: HeartbeatFacts): Promise<void> {
  const now = facts.now();
  await writer.appendAs(SYSTEM, {
    thread: TH_INSTANCE_REGISTRY,
    actor: facts.instanceDid,
    act: 'DO',
    body: {
      topic: 'heartbeat',
      kind: KIND_HEARTBEAT,
      instance_did: facts.instanceDid,
      endpoint: facts.endpoint,
      version: facts.version,
      uptime_secs: Math.max(0, Math.floor((now - facts.startedAt) / 1000)),
      active_dispatches: facts.activeDispatches(),
      health: facts.health(),
      interval_secs: facts.intervalMs / 1000,
      at: new Date(now).toISOString(),
    },
  });
}
