/**
 * actor_directory: every actor seen writing on coordination threads, with
 * when it was first and last seen, what it wrote (records by act), where
 * (the threads, with counts), and the domains of the tasks it opened or was
 * assigned. One record is O(1) work; memory is one entry per actor plus one
 * per (actor, thread) pair. Reserved and system threads are skipped, so
 * configuration and credentials writes do not make an actor a participant.
 */
import type { Fold } from '../../core/folds/fold.js';
import { ACTS, type Act } from '../../core/records/acts.js';

export const ACTOR_DIRECTORY_FOLD = 'actor_directory';

export interface SeenAt {
  sequence: number;
  /** Receipt time, ISO 8601. */
  at: string;
}

/** Where an actor was seen, as the fold keeps it: the ISO text is written only when read. */
export interface Seen {
  sequence: number;
  /** Receipt time, Unix milliseconds. */
  createdAt: number;
}

export interface ActorThreadEntry {
  records: number;
  last_sequence: number;
}

export interface ActorEntry {
  did: string;
  first_seen: Seen;
  last_seen: Seen;
  record_count: number;
  by_act: Partial<Record<Act, number>>;
  threads: Map<string, ActorThreadEntry>;
  /** Domains of the tasks it opened or was assigned, with counts. */
  domains: Map<string, number>;
  /** INTENDs naming it in `assigned_to`. */
  assigned: number;
}

export interface ActorDirectoryState {
  actors: Map<string, ActorEntry>;
}

/** The wire summary of one actor (list items). */
export interface ActorSummary {
  object: 'actor';
  did: string;
  /** `user`, `agent`, `system` (did:sync kinds), or the DID method (`key`, `web`). */
  kind: string;
  first_seen: SeenAt;
  last_seen: SeenAt;
  record_count: number;
  thread_count: number;
}

export function didKind(did: string): string {
  const sync = /^did:sync:([a-z]+):/.exec(did);
  if (sync) return sync[1]!;
  return /^did:([a-z0-9]+):/.exec(did)?.[1] ?? 'unknown';
}

function seenAt({ sequence, createdAt }: Seen): SeenAt {
  return { sequence, at: new Date(createdAt).toISOString() };
}

export function summarise(entry: ActorEntry): ActorSummary {
  return {
    object: 'actor',
    did: entry.did,
    kind: didKind(entry.did),
    first_seen: seenAt(entry.first_seen),
    last_seen: seenAt(entry.last_seen),
    record_count: entry.record_count,
    thread_count: entry.threads.size,
  };
}

function entryFor(state: ActorDirectoryState, did: string, seen: Seen): ActorEntry {
  let entry = state.actors.get(did);
  if (!entry) {
    entry = { did, first_seen: seen, last_seen: seen, record_count: 0, by_act: {}, threads: new Map(), domains: new Map(), assigned: 0 };
    state.actors.set(did, entry);
  }
  return entry;
}

function countDomain(entry: ActorEntry, domain: unknown): void {
  if (typeof domain === 'string' && domain.length > 0 && domain.length <= 200) entry.domains.set(domain, (entry.domains.get(domain) ?? 0) + 1);
}

export const actorDirectoryFold: Fold<ActorDirectoryState, ActorSummary[]> = {
  name: ACTOR_DIRECTORY_FOLD,
  scope: 'global',
  description: 'Every actor seen on coordination threads: first and last seen, records by act, threads, task domains.',
  ignoresSystemThreads: true,
  initial: () => ({ actors: new Map() }),
  apply(state, { sequence, createdAt, record }) {
    // Formatting the time as ISO text cost a third of this fold's apply; it is done when read.
    const seen = { sequence, createdAt: createdAt ?? 0 };
    const entry = entryFor(state, record.actor, seen);
    entry.last_seen = seen;
    entry.record_count++;
    entry.by_act[record.act] = (entry.by_act[record.act] ?? 0) + 1;
    const thread = entry.threads.get(record.thread);
    if (thread) {
      thread.records++;
      thread.last_sequence = sequence;
    } else {
      entry.threads.set(record.thread, { records: 1, last_sequence: sequence });
    }
    if (record.act === 'INTEND') {
      countDomain(entry, record.body['domain']);
      const assignee = record.body['assigned_to'];
      if (typeof assignee === 'string' && assignee !== record.actor && /^did:[a-z0-9]+:./.test(assignee) && assignee.length <= 512) {
        // An assignee is known to the directory before it writes: it has work waiting.
        const assigned = entryFor(state, assignee, seen);
        assigned.assigned++;
        countDomain(assigned, record.body['domain']);
      }
    }
    return state;
  },
  value: (state) => [...state.actors.values()].map(summarise).sort((a, b) => (a.did < b.did ? -1 : a.did > b.did ? 1 : 0)),
  checkpoint: {
    // 2: first_seen and last_seen hold the receipt time in milliseconds, not ISO text.
    version: 2,
    save: (state) =>
      [...state.actors.values()].map((entry) => ({
        ...entry,
        threads: [...entry.threads.entries()],
        domains: [...entry.domains.entries()],
      })),
    load: (saved) => {
      const rows = saved as Array<Omit<ActorEntry, 'threads' | 'domains'> & { threads: Array<[string, ActorThreadEntry]>; domains: Array<[string, number]> }>;
      return { actors: new Map(rows.map((row) => [row.did, { ...row, threads: new Map(row.threads), domains: new Map(row.domains) }])) };
    },
  },
};

/** Acts in their canonical order, for stable by_act output. */
export function orderedActs(byAct: Partial<Record<Act, number>>): Partial<Record<Act, number>> {
  const out: Partial<Record<Act, number>> = {};
  for (const act of ACTS) if (byAct[act]) out[act] = byAct[act];
  return out;
}
