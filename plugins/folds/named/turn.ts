/**
 * turn (per thread): the thread as a timeline of turns. Consecutive records
 * by one actor form a turn; each record shows its content after corrections
 * (the corrected body and a one-line text, with `corrected_by`) and is marked
 * `cancelled_by` while a cancellation is in force (../corrections.ts). The
 * latest TURN_WINDOW records are kept (`omitted_records` counts the earlier
 * ones; page GET /v1/records for the whole thread), so a long thread costs
 * bounded memory and each record is applied in O(1).
 */
import type { Act } from '../../../core/records/acts.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { Fold } from '../../../core/folds/fold.js';
import { applyToTimeline, entryText, groupTurns, newTimeline, timelineEntries, windowSize, type TimelineEntry, type TimelineState, type Turn } from './timeline.js';

export const TURN_FOLD = 'turn';
/** Records the turn fold keeps per thread. */
export const TURN_WINDOW = 500;

export interface TurnRecord {
  id: string;
  sequence: number;
  act: Act;
  clock: number;
  kind: string | null;
  text: string;
  body: JsonObject;
  verdict: string | null;
  fulfills: string | null;
  cancels: string | null;
  supersedes: string | null;
  corrected_by: string | null;
  cancelled_by: string | null;
}

export interface TurnValue {
  thread: string;
  record_count: number;
  /** Turns on the whole thread (the last one's `turn` + 1). */
  turn_count: number;
  /** Records before the window, not shown. */
  omitted_records: number;
  turns: Turn<TurnRecord>[];
}

export function turnRecord(entry: TimelineEntry): TurnRecord {
  return {
    id: entry.id,
    sequence: entry.sequence,
    act: entry.act,
    clock: entry.clock,
    kind: entry.kind,
    text: entryText(entry),
    body: entry.body,
    verdict: entry.verdict,
    fulfills: entry.fulfills,
    cancels: entry.cancels,
    supersedes: entry.supersedes,
    corrected_by: entry.corrected_by,
    cancelled_by: entry.cancelled_by,
  };
}

export interface TurnState {
  thread: string;
  timeline: TimelineState;
}

export const turnFold: Fold<TurnState, TurnValue> = {
  name: TURN_FOLD,
  scope: 'thread',
  description: `The thread as turns (consecutive records by one actor), content after corrections and cancellations; the latest ${TURN_WINDOW} records.`,
  initial: (thread) => ({ thread, timeline: newTimeline(TURN_WINDOW) }),
  apply(state, { sequence, record }) {
    applyToTimeline(state.timeline, sequence, record);
    return state;
  },
  value({ thread, timeline }) {
    return {
      thread,
      record_count: timeline.recordCount,
      turn_count: timeline.recordCount === 0 ? 0 : timeline.turnCount + 1,
      omitted_records: timeline.recordCount - windowSize(timeline),
      // Bodies are frozen record bodies or fresh overlays: cloned so a caller cannot reach the state.
      turns: structuredClone(groupTurns(timelineEntries(timeline), turnRecord)),
    };
  },
};
