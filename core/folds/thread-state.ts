/**
 * thread_state: what a writer and a reader need to know about one thread.
 * The arc (spec §2.3 / prior art): an INTEND opens the thread; a KNOW whose
 * `fulfills` names an INTEND of the thread, a DO whose `cancels` names one,
 * or a KNOW with `verdict: "reject"` closes it; a later INTEND reopens it,
 * and so does a DO cancelling the record that closed it.
 * Corrections (./corrections.ts) by the opener of the thread's first INTEND
 * change `first_goal`; a correction is content, never an act of the arc.
 * `actor_clocks` gives each writer its highest clock, so its next clock is that + 1.
 * An archival record (DELETE /v1/threads/{id}) sets `archived`; nothing is deleted.
 * Participants carry their record counts by act and inferred roles (prior
 * art §1.7): opener (first INTEND), worker (a KNOW without a verdict
 * fulfilling an INTEND of the thread), reviewer (a verdict), adapter (a record with
 * `dispatch_handled: true`); a participant with none of these is an observer.
 */
import type { Fold } from './fold.js';
import { cancelledBy, correctionFields, mayCorrect, supersededBy } from './corrections.js';

export type ThreadStatus = 'none' | 'open' | 'closed';

export interface ParticipantState {
  actor: string;
  record_count: number;
  highest_clock: number;
  first_sequence: number;
  last_sequence: number;
  /** Inferred roles in the order they were earned; `observer` is added to rows of participants without one. */
  roles: string[];
  /** Records written, by act (acts not written are absent). */
  acts: Record<string, number>;
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
  /** body.goal of the first INTEND, if any, after its opener's corrections. */
  first_goal: string | null;
  /** The correction that set `first_goal`, when it was corrected. */
  goal_corrected_by: string | null;
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
  /** The first INTEND and the corrections of it (a correction of one of these corrects the goal). */
  goalRecords: Set<string>;
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
        goal_corrected_by: null,
        closed_by: null,
        first_sequence: null,
        last_sequence: null,
        archived: false,
      },
      participants: new Map(),
      intents: new Set(),
      goalRecords: new Set(),
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
      participant = { actor: record.actor, record_count: 0, highest_clock: record.clock, first_sequence: sequence, last_sequence: sequence, roles: [], acts: {} };
      state.participants.set(record.actor, participant);
      v.participants.push(record.actor);
    }
    participant.record_count += 1;
    participant.highest_clock = Math.max(participant.highest_clock, record.clock);
    participant.last_sequence = sequence;
    participant.acts[record.act] = (participant.acts[record.act] ?? 0) + 1;

    const body = record.body;
    if (body['dispatch_handled'] === true) addRole(participant, 'adapter');
    if (body['kind'] === THREAD_ARCHIVE_KIND && typeof body['archived'] === 'boolean') v.archived = body['archived'];
    const supersedes = supersededBy(record);
    const cancels = cancelledBy(record);
    if (supersedes !== null) {
      if (state.goalRecords.has(supersedes) && v.opened_by !== null && mayCorrect(record, v.opened_by)) {
        state.goalRecords.add(record.id);
        const goal = correctionFields(record)['goal'];
        if (typeof goal === 'string') {
          v.first_goal = goal;
          v.goal_corrected_by = record.id;
        }
      }
    } else if (record.act === 'INTEND') {
      state.intents.add(record.id);
      if (v.opened_by === null) {
        v.opened_by = record.actor;
        state.goalRecords.add(record.id);
        addRole(participant, 'opener');
        if (typeof body['goal'] === 'string') v.first_goal = body['goal'];
      }
      v.status = 'open';
      v.closed_by = null;
    } else if (record.act === 'KNOW') {
      if (typeof body['verdict'] === 'string') addRole(participant, 'reviewer');
      if (typeof body['fulfills'] === 'string' && state.intents.has(body['fulfills'])) {
        if (typeof body['verdict'] !== 'string') addRole(participant, 'worker');
        v.status = 'closed';
        v.closed_by = { record: record.id, actor: record.actor, reason: 'fulfilled' };
      } else if (body['verdict'] === 'reject' && v.status === 'open') {
        v.status = 'closed';
        v.closed_by = { record: record.id, actor: record.actor, reason: 'rejected' };
      }
    } else if (cancels !== null && v.closed_by !== null && v.closed_by.record === cancels) {
      // Cancelling the record that closed the thread reopens it.
      v.status = 'open';
      v.closed_by = null;
    } else if (cancels !== null && state.intents.has(cancels)) {
      v.status = 'closed';
      v.closed_by = { record: record.id, actor: record.actor, reason: 'cancelled' };
    }
    return state;
  },
  value(state) {
    return structuredClone(state.value);
  },
};

/** Participant rows of a thread, richer than the DID list in the value, in order of first appearance. */
export function participantRows(state: ThreadState): ParticipantState[] {
  return [...state.participants.values()].map((p) => ({ ...p, roles: p.roles.length > 0 ? [...p.roles] : ['observer'], acts: { ...p.acts } }));
}
