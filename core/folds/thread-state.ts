/**
 * thread_state: what a writer and a reader need to know about one thread.
 * The arc (spec §2.3 / prior art): an INTEND opens the thread; a KNOW whose
 * `fulfills` names an INTEND of the thread, a DO whose `cancels` names one,
 * or a KNOW with `verdict: "reject"` closes it; a later INTEND reopens it.
 * `actor_clocks` gives each writer its highest clock, so its next clock is that + 1.
 * An archival record (DELETE /v1/threads/{id}) sets `archived`; nothing is deleted.
 */
import type { Fold } from './fold.js';

export type ThreadStatus = 'none' | 'open' | 'closed';

export interface ParticipantState {
  actor: string;
  record_count: number;
  highest_clock: number;
  first_sequence: number;
  last_sequence: number;
  roles: string[];
}

export interface ThreadStateValue {
  thread: string;
  record_count: number;
  /** Highest clock written on the thread by anyone; null when empty. */
  last_clock: number | null;
  /** Highest clock per actor: the next clock of an actor is this + 1 (0 when absent). */
  actor_clocks: Record<string, number>;
  /** DIDs in order of first appearance. */
  participants: string[];
  status: ThreadStatus;
  opened_by: string | null;
  /** body.goal of the first INTEND, if any. */
  first_goal: string | null;
  /** How the thread was last closed, when status is closed. */
  closed_by: { record: string; actor: string; reason: 'fulfilled' | 'cancelled' | 'rejected' } | null;
  first_sequence: number | null;
  last_sequence: number | null;
  /** Hidden from thread listings by an archival record (`body.kind` core.thread.archive.v1); the records stay. */
  archived: boolean;
}

/** The body kind of a thread's archival record: `{kind, archived: true|false, reason?}` on the thread itself. */
export const THREAD_ARCHIVE_KIND = 'core.thread.archive.v1';

export interface ThreadState {
  value: ThreadStateValue;
  participants: Map<string, ParticipantState>;
  intents: Set<string>;
}

function addRole(participant: ParticipantState, role: string): void {
  if (!participant.roles.includes(role)) participant.roles.push(role);
}

export const threadStateFold: Fold<ThreadState, ThreadStateValue> = {
  name: 'thread_state',
  scope: 'thread',
  description: 'Participants, per-actor highest clock, record count, last clock and open/closed status of one thread.',
  initial(thread) {
    return {
      value: {
        thread,
        record_count: 0,
        last_clock: null,
        actor_clocks: {},
        participants: [],
        status: 'none',
        opened_by: null,
        first_goal: null,
        closed_by: null,
        first_sequence: null,
        last_sequence: null,
        archived: false,
      },
      participants: new Map(),
      intents: new Set(),
    };
  },
  apply(state, { sequence, record }) {
    const v = state.value;
    v.record_count += 1;
    v.last_clock = v.last_clock === null ? record.clock : Math.max(v.last_clock, record.clock);
    v.actor_clocks[record.actor] = Math.max(v.actor_clocks[record.actor] ?? -1, record.clock);
    v.first_sequence ??= sequence;
    v.last_sequence = sequence;

    let participant = state.participants.get(record.actor);
    if (!participant) {
      participant = { actor: record.actor, record_count: 0, highest_clock: record.clock, first_sequence: sequence, last_sequence: sequence, roles: [] };
      state.participants.set(record.actor, participant);
      v.participants.push(record.actor);
    }
    participant.record_count += 1;
    participant.highest_clock = Math.max(participant.highest_clock, record.clock);
    participant.last_sequence = sequence;

    const body = record.body;
    if (body['kind'] === THREAD_ARCHIVE_KIND && typeof body['archived'] === 'boolean') v.archived = body['archived'];
    if (record.act === 'INTEND') {
      state.intents.add(record.id);
      if (v.opened_by === null) {
        v.opened_by = record.actor;
        addRole(participant, 'opener');
        if (typeof body['goal'] === 'string') v.first_goal = body['goal'];
      }
      v.status = 'open';
      v.closed_by = null;
    } else if (record.act === 'KNOW') {
      if (typeof body['verdict'] === 'string') addRole(participant, 'reviewer');
      if (typeof body['fulfills'] === 'string' && state.intents.has(body['fulfills'])) {
        v.status = 'closed';
        v.closed_by = { record: record.id, actor: record.actor, reason: 'fulfilled' };
      } else if (body['verdict'] === 'reject' && v.status === 'open') {
        v.status = 'closed';
        v.closed_by = { record: record.id, actor: record.actor, reason: 'rejected' };
      }
    } else if (record.act === 'DO' && typeof body['cancels'] === 'string' && state.intents.has(body['cancels'])) {
      v.status = 'closed';
      v.closed_by = { record: record.id, actor: record.actor, reason: 'cancelled' };
    }
    return state;
  },
  value(state) {
    return structuredClone(state.value);
  },
};

/** Participant rows of a thread, richer than the DID list in the value. */
export function participantRows(state: ThreadState): ParticipantState[] {
  return [...state.participants.values()].map((p) => ({ ...p, roles: [...p.roles] }));
}
