/** What the fleet routes and the CLI do: read the fleet's state, write control records as the caller. */
import type { Caller } from '../../core/access/caller.js';
import type { OwnFold } from '../../core/plugin/own-fold.js';
import type { RecordWriter } from '../../core/engine/record-writer.js';
import { token } from '../../core/di/token.js';
import type { JsonObject } from '../../core/records/json.js';
import type { LoomRecord } from '../../core/records/record.js';
import { TH_FLEET_CONTROL } from '../../core/records/reserved-threads.js';
import { KIND_EMERGENCY, KIND_FREEZE, KIND_THAW, fleetControlFold, type FleetControlState } from './fleet-control.js';
import { isLive, type InstanceRegistryState } from './instance-registry.js';

export interface ControlOutcome {
  readonly changed: boolean;
  readonly record: LoomRecord | null;
}

export class FleetService {
  constructor(
    private readonly writer: RecordWriter,
    private readonly controlFold: Pick<OwnFold<FleetControlState>, 'state'>,
    private readonly registry: Pick<OwnFold<InstanceRegistryState>, 'state'>,
    private readonly now: () => number,
  ) {}

  control(): FleetControlState {
    return this.controlFold.state();
  }

  status() {
    const now = this.now();
    const control = fleetControlFold.value(this.control());
    const instances = [...this.registry.state().instances.values()].map((h) => ({ ...h, live: isLive(h, now) }));
    return {
      object: 'fleet' as const,
      emergency: control.emergency,
      freezes: control.freezes.map((f) => ({ ...f, hard: f.hard_after !== null && now >= Date.parse(f.hard_after) })),
      instances,
    };
  }

  private async write(caller: Caller, body: JsonObject): Promise<LoomRecord> {
    const { stored } = await this.writer.appendAs(caller, { thread: TH_FLEET_CONTROL, act: 'LEARN', body: { ...body, at: new Date(this.now()).toISOString() } });
    return stored.record;
  }

  async freeze(caller: Caller, input: { namespace: string; level: 'soft' | 'hard'; grace_secs?: number; reason?: string }): Promise<ControlOutcome> {
    const current = this.control().freezes.get(input.namespace);
    const grace = input.level === 'hard' ? (input.grace_secs ?? 60) : undefined;
    if (current && current.level === input.level && input.level === 'soft') return { changed: false, record: null };
    const body: JsonObject = { kind: KIND_FREEZE, target_namespace: input.namespace, level: input.level };
    if (grace !== undefined) body['grace_secs'] = grace;
    if (input.reason !== undefined) body['reason'] = input.reason;
    return { changed: true, record: await this.write(caller, body) };
  }

  async thaw(caller: Caller, input: { namespace: string; reason?: string }): Promise<ControlOutcome> {
    if (!this.control().freezes.has(input.namespace)) return { changed: false, record: null };
    const body: JsonObject = { kind: KIND_THAW, target_namespace: input.namespace };
    if (input.reason !== undefined) body['reason'] = input.reason;
    return { changed: true, record: await this.write(caller, body) };
  }

  async emergency(caller: Caller, input: { active: boolean; reason?: string }): Promise<ControlOutcome> {
    if ((this.control().emergency !== null) === input.active) return { changed: false, record: null };
    const body: JsonObject = { kind: KIND_EMERGENCY, active: input.active };
    if (input.reason !== undefined) body['reason'] = input.reason;
    return { changed: true, record: await this.write(caller, body) };
  }
}

export const FleetServiceToken = token<FleetService>('fleet.FleetService');
