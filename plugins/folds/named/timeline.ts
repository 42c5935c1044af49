/**
 * A bounded window of a thread's latest records as a timeline, with their
 * content after corrections and cancellations (../corrections.ts). The turn
 * fold keeps a long window, the frame and the rollup a short one. Records
 * are numbered into turns as they arrive (consecutive records by one actor
 * form a turn), so turn numbers stay those of the whole thread when the
 * window drops its oldest records. Each apply is O(1) amortised.
 */
import type { Act } from '../../../core/records/acts.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { cancelledBy, correctedBody, mayCorrect, supersededBy } from '../../../core/folds/corrections.js';
import { recordText } from './record-text.js';

export interface TimelineEntry {
  id: string;
  sequence: number;
  thread: string;
  actor: string;
  act: Act;
  clock: number;
  /** Turn number on the thread, from 0. */
  turn: number;
  kind: string | null;
  /** The content after corrections (the superseded record's body with the corrections laid over it). */
  body: JsonObject;
  verdict: string | null;
  fulfills: string | null;
  cancels: string | null;
  supersedes: string | null;
  /** The latest correction in force, when corrected. */
  corrected_by: string | null;
  /** The cancellation in force, when cancelled. */
  cancelled_by: string | null;
}

export interface TimelineState {
  readonly capacity: number;
  /** The window: entries[head..] are live, oldest first. */
  entries: TimelineEntry[];
  head: number;
  byId: Map<string, TimelineEntry>;
  /** Correction id → the id of the record whose content it corrects (chains resolve to that record). */
  roots: Map<string, string>;
  /** Records seen on the thread, in or out of the window. */
  recordCount: number;
  turnCount: number;
  lastActor: string | null;
}

export function newTimeline(capacity: number): TimelineState {
  return { capacity, entries: [], head: 0, byId: new Map(), roots: new Map(), recordCount: 0, turnCount: 0, lastActor: null };
}

function str(body: JsonObject, key: string): string | null {
  const value = body[key];
  return typeof value === 'string' ? value : null;
}

/**
 * One line of an entry's content after corrections (computed when read, not
 * per record: most entries leave a short window unread). Corrections and
 * cancellations read as what they do; everything else by its content.
 */
export function entryText(entry: TimelineEntry): string {
  const reason = str(entry.body, 'reason');
  const why = reason ? `: ${recordText({ reason })}` : '';
  if (entry.supersedes !== null) return `correction of ${entry.supersedes.slice(0, 12)}${why}`;
  if (entry.cancels !== null) return `cancels ${entry.cancels.slice(0, 12)}${why}`;
  return recordText(entry.body);
}

export function timelineEntries(state: TimelineState): readonly TimelineEntry[] {
  return state.head === 0 ? state.entries : state.entries.slice(state.head);
}

export function windowSize(state: TimelineState): number {
  return state.entries.length - state.head;
}

export function applyToTimeline(state: TimelineState, sequence: number, record: LoomRecord): void {
  state.recordCount += 1;
  if (record.actor !== state.lastActor) {
    if (state.lastActor !== null) state.turnCount += 1;
    state.lastActor = record.actor;
  }
  const body = record.body;
  const entry: TimelineEntry = {
    id: record.id,
    sequence,
    thread: record.thread,
    actor: record.actor,
    act: record.act,
    clock: record.clock,
    turn: state.turnCount,
    kind: str(body, 'kind'),
    body,
    verdict: str(body, 'verdict'),
    fulfills: str(body, 'fulfills'),
    cancels: cancelledBy(record),
    supersedes: supersededBy(record),
    corrected_by: null,
    cancelled_by: null,
  };

  if (entry.supersedes !== null) applyCorrection(state, record, entry.supersedes);
  if (entry.cancels !== null) applyCancellation(state, record.id, entry.cancels);

  state.entries.push(entry);
  state.byId.set(entry.id, entry);
  if (windowSize(state) > state.capacity) evictOldest(state);
}

function applyCorrection(state: TimelineState, correction: LoomRecord, supersedes: string): void {
  const superseded = state.byId.get(supersedes);
  if (!superseded || !mayCorrect(correction, superseded.actor)) return;
  // A correction of a correction corrects the record the first one corrected;
  // a "correction" that corrected nothing is not a content to correct.
  const rootId = superseded.supersedes === null ? supersedes : state.roots.get(supersedes);
  const root = rootId === undefined ? undefined : state.byId.get(rootId);
  if (!root) return;
  state.roots.set(correction.id, root.id);
  // Corrections change content, never links (fulfills, cancels, supersedes stay those of the record).
  root.body = correctedBody(root.body, correction);
  root.verdict = str(root.body, 'verdict');
  root.corrected_by = correction.id;
}

function applyCancellation(state: TimelineState, cancellation: string, cancels: string): void {
  const target = state.byId.get(cancels);
  // Corrections cannot be cancelled: correct again instead.
  if (!target || target.supersedes !== null) return;
  target.cancelled_by = cancellation;
  // Cancelling the cancellation in force withdraws it.
  if (target.cancels !== null) {
    const withdrawn = state.byId.get(target.cancels);
    if (withdrawn && withdrawn.cancelled_by === target.id) withdrawn.cancelled_by = null;
  }
}

function evictOldest(state: TimelineState): void {
  const gone = state.entries[state.head]!;
  state.head += 1;
  state.byId.delete(gone.id);
  state.roots.delete(gone.id);
  // Compact once the dead prefix is as long as the live window: O(1) amortised.
  if (state.head >= 64 && state.head * 2 >= state.entries.length) {
    state.entries = state.entries.slice(state.head);
    state.head = 0;
  }
}

/** Plain JSON of the timeline (checkpoints). */
export function saveTimeline(state: TimelineState): unknown {
  return {
    capacity: state.capacity,
    entries: timelineEntries(state),
    roots: [...state.roots],
    recordCount: state.recordCount,
    turnCount: state.turnCount,
    lastActor: state.lastActor,
  };
}

export function loadTimeline(saved: unknown): TimelineState {
  const s = saved as { capacity: number; entries: TimelineEntry[]; roots: [string, string][]; recordCount: number; turnCount: number; lastActor: string | null };
  const entries = s.entries.map((entry) => ({ ...entry }));
  return {
    capacity: s.capacity,
    entries,
    head: 0,
    byId: new Map(entries.map((entry) => [entry.id, entry])),
    roots: new Map(s.roots),
    recordCount: s.recordCount,
    turnCount: s.turnCount,
    lastActor: s.lastActor,
  };
}

/** Entries grouped into turns, oldest first. */
export interface Turn<E> {
  turn: number;
  actor: string;
  records: E[];
}

export function groupTurns<E>(entries: readonly TimelineEntry[], view: (entry: TimelineEntry) => E): Turn<E>[] {
  const turns: Turn<E>[] = [];
  for (const entry of entries) {
    const last = turns[turns.length - 1];
    if (last && last.turn === entry.turn) last.records.push(view(entry));
    else turns.push({ turn: entry.turn, actor: entry.actor, records: [view(entry)] });
  }
  return turns;
}
