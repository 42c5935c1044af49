/**
 * blueprint_registry: the latest materialization of each blueprint name by
 * each owner, from the `core.actor.blueprint.v1` records on
 * th_actor_registry, so `extends: ["<name>"]` and a re-materialization find
 * the record without a log scan. Only the members plugin writes the thread
 * (registry-gate.ts); the body is read back by id when a blueprint extends it.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { TH_ACTOR_REGISTRY } from '../../../core/records/reserved-threads.js';
import { KIND_BLUEPRINT } from './blueprint-format.js';

export const BLUEPRINT_REGISTRY_FOLD = 'blueprint_registry';

export interface BlueprintRegistryState {
  /** `<owner>\n<name>` → the record id of its latest materialization. */
  latest: Map<string, string>;
}

export const blueprintKey = (owner: string, name: string): string => `${owner}\n${name}`;

export const blueprintRegistryFold: Fold<BlueprintRegistryState, { blueprints: number }> = {
  name: BLUEPRINT_REGISTRY_FOLD,
  scope: 'global',
  description: 'Blueprints materialized on this instance: the latest record of each name per owner, from th_actor_registry.',
  threads: [TH_ACTOR_REGISTRY],
  kinds: [KIND_BLUEPRINT],
  initial: () => ({ latest: new Map() }),
  apply(state, { record }) {
    if (record.thread !== TH_ACTOR_REGISTRY || record.body['kind'] !== KIND_BLUEPRINT) return state;
    const { owner, name } = record.body;
    if (typeof owner === 'string' && typeof name === 'string') state.latest.set(blueprintKey(owner, name), record.id);
    return state;
  },
  value: (state) => ({ blueprints: state.latest.size }),
};
