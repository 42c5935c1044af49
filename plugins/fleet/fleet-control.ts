/**
 * Fleet control (spec §6): LEARN records on th_fleet_control, written by
 * administrators. A freeze stops work in a namespace and its descendants:
 * `soft` refuses new INTEND, DO and CALL; `hard` does the same during a grace
 * window (grace_secs, default 60), then refuses every write there. The
 * emergency stop sets the dispatch dial to 0 everywhere: no dispatch, and no
 * new INTEND, DO or CALL in any namespace. Each is reversed by a
 * counter-record (a thaw; an emergency record with active: false).
 *
 *   core.fleet.freeze.v1     {target_namespace, level: soft|hard, grace_secs?, at, reason?}
 *   core.fleet.thaw.v1       {target_namespace, at, reason?}
 *   core.fleet.emergency.v1  {active: true|false, at, reason?}
 *
 * `at` is the writer's clock (ISO 8601), checked against the instance's at
 * ingest; the grace window runs from it, so every replica folds the same state.
 */
import type { Fold } from '../../core/folds/fold.js';
import type { JsonObject } from '../../core/records/json.js';
import { namespaceSyntaxError } from '../../core/records/namespace-path.js';
import { TH_FLEET_CONTROL } from '../../core/records/reserved-threads.js';

export const KIND_FREEZE = 'core.fleet.freeze.v1';
export const KIND_THAW = 'core.fleet.thaw.v1';
export const KIND_EMERGENCY = 'core.fleet.emergency.v1';
export const DEFAULT_GRACE_SECS = 60;
export const FLEET_CONTROL_FOLD = 'fleet_control';

/** Acts a soft freeze (and the emergency stop) refuses: the ones that start or do work. */
export const WORK_ACTS: ReadonlySet<string> = new Set(['INTEND', 'DO', 'CALL']);

export type FleetControl =
  | { kind: 'freeze'; namespace: string; level: 'soft' | 'hard'; graceSecs: number; at: string; reason: string | null }
  | { kind: 'thaw'; namespace: string; at: string; reason: string | null }
  | { kind: 'emergency'; active: boolean; at: string; reason: string | null };

/** Parses a fleet control body, or says what is wrong with it. */
export function parseFleetControl(body: JsonObject): FleetControl | string {
  const kind = body['kind'];
  const at = body['at'];
  if (typeof at !== 'string' || Number.isNaN(Date.parse(at)) || !/(Z|[+-]\d{2}:?\d{2})$/i.test(at)) return 'at must be an ISO 8601 time with an offset';
  const reason = body['reason'];
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > 500)) return 'reason must be a string of at most 500 characters';
  const why = typeof reason === 'string' ? reason : null;
  const iso = new Date(at).toISOString();
  if (kind === KIND_EMERGENCY) {
    if (typeof body['active'] !== 'boolean') return 'active must be true (stop) or false (clear)';
    return { kind: 'emergency', active: body['active'], at: iso, reason: why };
  }
  if (kind !== KIND_FREEZE && kind !== KIND_THAW) return `kind must be ${KIND_FREEZE}, ${KIND_THAW} or ${KIND_EMERGENCY}`;
  const namespace = body['target_namespace'];
  if (typeof namespace !== 'string') return 'target_namespace must be a namespace';
  const nsError = namespaceSyntaxError(namespace);
  if (nsError) return `target_namespace ${nsError}`;
  if (kind === KIND_THAW) return { kind: 'thaw', namespace, at: iso, reason: why };
  const level = body['level'] ?? 'soft';
  if (level !== 'soft' && level !== 'hard') return 'level must be soft or hard';
  const grace = body['grace_secs'] ?? DEFAULT_GRACE_SECS;
  if (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0 || grace > 86_400) return 'grace_secs must be an integer from 0 to 86400';
  return { kind: 'freeze', namespace, level, graceSecs: grace, at: iso, reason: why };
}

export interface Freeze {
  namespace: string;
  level: 'soft' | 'hard';
  since: string;
  /** Hard freezes: when every write starts being refused. */
  hard_after: string | null;
  reason: string | null;
  record_id: string;
}

export interface Emergency {
  since: string;
  reason: string | null;
  record_id: string;
}

export interface FleetControlState {
  freezes: Map<string, Freeze>;
  emergency: Emergency | null;
}

export interface FleetControlValue {
  freezes: Freeze[];
  emergency: Emergency | null;
}

export const fleetControlFold: Fold<FleetControlState, FleetControlValue> = {
  name: FLEET_CONTROL_FOLD,
  scope: 'global',
  description: 'Freezes in force per namespace and the emergency stop, from th_fleet_control.',
  threads: [TH_FLEET_CONTROL],
  initial: () => ({ freezes: new Map(), emergency: null }),
  apply(state, { record }) {
    if (record.thread !== TH_FLEET_CONTROL || record.act !== 'LEARN') return state;
    const control = parseFleetControl(record.body);
    if (typeof control === 'string') return state;
    if (control.kind === 'emergency') {
      state.emergency = control.active ? { since: control.at, reason: control.reason, record_id: record.id } : null;
    } else if (control.kind === 'thaw') {
      state.freezes.delete(control.namespace);
    } else {
      state.freezes.set(control.namespace, {
        namespace: control.namespace,
        level: control.level,
        since: control.at,
        hard_after: control.level === 'hard' ? new Date(Date.parse(control.at) + control.graceSecs * 1000).toISOString() : null,
        reason: control.reason,
        record_id: record.id,
      });
    }
    return state;
  },
  value: (state) => ({ freezes: [...state.freezes.values()].map((f) => ({ ...f })), emergency: state.emergency ? { ...state.emergency } : null }),
};

/** The freezes that cover `namespace` (itself or an ancestor). */
export function freezesCovering(state: FleetControlState, namespace: string): Freeze[] {
  if (state.freezes.size === 0) return [];
  const covering: Freeze[] = [];
  for (const freeze of state.freezes.values()) {
    if (namespace === freeze.namespace || (freeze.namespace !== 'default' && namespace.startsWith(freeze.namespace + '/'))) covering.push(freeze);
  }
  return covering;
}

/** Why a write of `act` in `namespace` is refused now, or null. */
export function refusalFor(state: FleetControlState, act: string, namespace: string, now: number): string | null {
  if (state.emergency && WORK_ACTS.has(act)) {
    return `the emergency stop is active since ${state.emergency.since}: no new INTEND, DO or CALL anywhere (clear it with \`loom fleet emergency --clear\`)`;
  }
  for (const freeze of freezesCovering(state, namespace)) {
    const hard = freeze.hard_after !== null && now >= Date.parse(freeze.hard_after);
    if (hard) return `namespace ${freeze.namespace} is hard-frozen since ${freeze.hard_after}: every write there is refused (thaw with \`loom fleet thaw ${freeze.namespace}\`)`;
    if (WORK_ACTS.has(act)) return `namespace ${freeze.namespace} is frozen (${freeze.level}) since ${freeze.since}: no new INTEND, DO or CALL there (thaw with \`loom fleet thaw ${freeze.namespace}\`)`;
  }
  return null;
}
