/**
 * member_registry: every member defined on this instance, from the
 * definition records on th_actor_registry (spec §2.3, §4.15). Per member:
 * the version in force (its whole body) and the list of every version's
 * record id, time and writer, so the roster and history answer from memory.
 * Old versions' fields are read back by id when history shows them.
 * Only the members plugin writes there (registry-gate.ts), so every record
 * of the kind is a version; anything else on the thread is skipped.
 */
import type { Fold } from '../../core/folds/fold.js';
import { TH_ACTOR_REGISTRY } from '../../core/records/reserved-threads.js';
import { KIND_DEFINITION, type Change, type DefinitionBody } from './definition.js';

export const MEMBER_REGISTRY_FOLD = 'member_registry';

export interface VersionEntry {
  readonly id: string;
  readonly sequence: number;
  /** Receipt time, ISO 8601. */
  readonly at: string;
  /** The DID that wrote the version (the owner, or an operator retiring it). */
  readonly by: string;
  readonly version: number;
  readonly change: Change;
}

export interface MemberEntry {
  readonly did: string;
  current: DefinitionBody;
  currentId: string;
  /** Oldest first. */
  versions: VersionEntry[];
}

export interface MemberRegistryState {
  members: Map<string, MemberEntry>;
  /** Members by owner DID, for "my assistants" without a scan. */
  byOwner: Map<string, Set<string>>;
}

export const memberRegistryFold: Fold<MemberRegistryState, { members: number }> = {
  name: MEMBER_REGISTRY_FOLD,
  scope: 'global',
  description: 'Member actors defined on this instance: the definition in force and every version, from th_actor_registry.',
  threads: [TH_ACTOR_REGISTRY],
  kinds: [KIND_DEFINITION],
  initial: () => ({ members: new Map(), byOwner: new Map() }),
  apply(state, { record, sequence, createdAt }) {
    if (record.thread !== TH_ACTOR_REGISTRY || record.body['kind'] !== KIND_DEFINITION) return state;
    const body = record.body as unknown as DefinitionBody;
    if (typeof body.actor_did !== 'string' || typeof body.owner !== 'string') return state;
    const version: VersionEntry = {
      id: record.id,
      sequence,
      at: new Date(createdAt ?? 0).toISOString(),
      by: typeof body.by === 'string' ? body.by : record.actor,
      version: body.version,
      change: body.change,
    };
    const entry = state.members.get(body.actor_did);
    if (entry) {
      entry.current = body;
      entry.currentId = record.id;
      entry.versions.push(version);
    } else {
      state.members.set(body.actor_did, { did: body.actor_did, current: body, currentId: record.id, versions: [version] });
      let owned = state.byOwner.get(body.owner);
      if (!owned) state.byOwner.set(body.owner, (owned = new Set()));
      owned.add(body.actor_did);
    }
    return state;
  },
  value: (state) => ({ members: state.members.size }),
};
