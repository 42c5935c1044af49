/**
 * Reserved, hand-assigned thread ids (spec §2.3). Every other thread id is
 * `th_` + 64 lowercase hex, derived by a helper in thread-id.ts.
 */
export const TH_ENGINE_CONFIG = 'th_engine_config';
export const TH_ACTOR_REGISTRY = 'th_actor_registry';
export const TH_NAMESPACE_REGISTRY = 'th_namespace_registry';
export const TH_INSTANCE_REGISTRY = 'th_instance_registry';
export const TH_FLEET_CONTROL = 'th_fleet_control';
export const TH_CONSENT = 'th_consent';
export const TH_FEDERATION_PAIRS = 'th_federation_pairs';

export const RESERVED_THREADS = [
  TH_ENGINE_CONFIG,
  TH_ACTOR_REGISTRY,
  TH_NAMESPACE_REGISTRY,
  TH_INSTANCE_REGISTRY,
  TH_FLEET_CONTROL,
  TH_CONSENT,
  TH_FEDERATION_PAIRS,
] as const;

export type ReservedThread = (typeof RESERVED_THREADS)[number];

const reservedSet: ReadonlySet<string> = new Set(RESERVED_THREADS);

export function isReservedThread(value: unknown): value is ReservedThread {
  return typeof value === 'string' && reservedSet.has(value);
}
