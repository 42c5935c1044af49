/**
 * frame (per thread, GET /v1/folds/frame/{thread}): everything a UI or an
 * agent needs to render a thread in one answer, after corrections and
 * cancellations: its title and goal, status and who closed it, participants
 * with their roles, the latest FRAME_RECORDS records as turns, the open tasks
 * on the thread with the counts by state, the last verdict, and how many
 * corrections and cancellations the thread holds (each corrected or
 * cancelled item also carries `corrected_by` / `cancelled_by`). Every list
 * is bounded; each record is applied in O(1).
 */
import type { LoomRecord } from '../../../core/records/record.js';
import type { Fold } from '../../../core/folds/fold.js';
import { cancelledBy, correctionFields, mayCorrect, supersededBy } from '../../../core/folds/corrections.js';
import { participantRows, threadStateFold, type ParticipantState, type ThreadState, type ThreadStateValue } from '../../../core/folds/thread-state.js';
import { clip, recordText, textField } from './record-text.js';
import { applyToTaskBook, newTaskBook, taskCopy, type TaskBook, type TaskCounts, type TaskItem } from './task-book.js';
import { turnRecord, type TurnRecord } from './turn.js';
import { applyToTimeline, groupTurns, newTimeline, timelineEntries, windowSize, type TimelineEntry, type TimelineState, type Turn } from './timeline.js';

export const FRAME_FOLD = 'frame';
/** Records shown as the latest turns. */
export const FRAME_RECORDS = 20;
/** Participants and open tasks listed (counts cover all). */
export const FRAME_LIST_LIMIT = 50;
/** Tasks of the thread no longer open that are tracked (for withdrawals of their cancellations). */
const FRAME_CLOSED_TASKS = 100;

/** A record in a frame: its turn record without the body and the links, to keep frames small. */
export type FrameRecord = Omit<TurnRecord, 'body' | 'fulfills' | 'cancels' | 'supersedes'>;

export interface FrameVerdict {
  record: string;
  actor: string;
  verdict: string;
  summary: string | null;
  /** What the verdict judges (`fulfills`, else `judged_by`). */
  judges: string | null;
  corrected_by: string | null;
  cancelled_by: string | null;
}

export interface FrameValue {
  thread: string;
  /** The goal, else the first record's text; at most 120 characters. */
  title: string | null;
  goal: string | null;
  goal_corrected_by: string | null;
  status: ThreadStateValue['status'];
  closed_by: ThreadStateValue['closed_by'];
  opened_by: string | null;
  archived: boolean;
  record_count: number;
  turn_count: number;
  first_sequence: number | null;
  last_sequence: number | null;
  participant_count: number;
  participants: ParticipantState[];
  /** Records before the latest turns, not shown. */
  omitted_records: number;
  latest_turns: Turn<FrameRecord>[];
  tasks: { counts: TaskCounts; open: TaskItem[] };
  last_verdict: FrameVerdict | null;
  corrections: number;
  cancellations: number;
}

export interface FrameState {
  thread: ThreadState;
  tasks: TaskBook;
  recent: TimelineState;
  firstText: string | null;
  lastVerdict: FrameVerdict | null;
  /** The last verdict and the corrections of it (a correction of one of these corrects the verdict). */
  verdictRecords: Set<string>;
  corrections: number;
  cancellations: number;
}

function frameRecord(entry: TimelineEntry): FrameRecord {
  const { body: _body, fulfills: _fulfills, cancels: _cancels, supersedes: _supersedes, ...shown } = turnRecord(entry);
  return shown;
}

function followVerdict(state: FrameState, record: LoomRecord): void {
  const body = record.body;
  const supersedes = supersededBy(record);
  const last = state.lastVerdict;
  if (supersedes !== null) {
    if (last && state.verdictRecords.has(supersedes) && mayCorrect(record, last.actor)) {
      state.verdictRecords.add(record.id);
      const fields = correctionFields(record);
      if (typeof fields['verdict'] === 'string') last.verdict = clip(fields['verdict'], 64);
      if ('summary' in fields) last.summary = textField(fields, 'summary', 500);
      last.corrected_by = record.id;
    }
    return;
  }
  const cancels = cancelledBy(record);
  if (cancels !== null && last) {
    if (cancels === last.record) last.cancelled_by = record.id;
    else if (cancels === last.cancelled_by) last.cancelled_by = null;
    return;
  }
  if (record.act === 'KNOW' && typeof body['verdict'] === 'string') {
    state.lastVerdict = {
      record: record.id,
      actor: record.actor,
      verdict: clip(body['verdict'], 64),
      summary: textField(body, 'summary', 500),
      judges: typeof body['fulfills'] === 'string' ? body['fulfills'] : record.judged_by,
      corrected_by: null,
      cancelled_by: null,
    };
    state.verdictRecords = new Set([record.id]);
  }
}

export const frameFold: Fold<FrameState, FrameValue> = {
  name: FRAME_FOLD,
  scope: 'thread',
  description: 'A renderable frame of a thread: title, goal, status, participants with roles, the latest turns, open tasks, the last verdict, after corrections and cancellations.',
  initial: (thread) => ({
    thread: threadStateFold.initial(thread),
    tasks: newTaskBook({ closedKept: FRAME_CLOSED_TASKS }),
    recent: newTimeline(FRAME_RECORDS),
    firstText: null,
    lastVerdict: null,
    verdictRecords: new Set(),
    corrections: 0,
    cancellations: 0,
  }),
  apply(state, input) {
    const { sequence, record } = input;
    state.thread = threadStateFold.apply(state.thread, input);
    applyToTaskBook(state.tasks, sequence, record);
    applyToTimeline(state.recent, sequence, record);
    followVerdict(state, record);
    state.firstText ??= clip(recordText(record.body), 120);
    if (supersededBy(record) !== null) state.corrections += 1;
    if (cancelledBy(record) !== null) state.cancellations += 1;
    return state;
  },
  value(state) {
    const v = state.thread.value;
    const goal = v.first_goal;
    const open = [...state.tasks.tasks.values()].filter((task) => task.state === 'open');
    const participants = participantRows(state.thread);
    return structuredClone({
      thread: v.thread,
      title: goal !== null ? clip(goal, 120) : state.firstText,
      goal,
      goal_corrected_by: v.goal_corrected_by,
      status: v.status,
      closed_by: v.closed_by,
      opened_by: v.opened_by,
      archived: v.archived,
      record_count: v.record_count,
      turn_count: state.recent.recordCount === 0 ? 0 : state.recent.turnCount + 1,
      first_sequence: v.first_sequence,
      last_sequence: v.last_sequence,
      participant_count: participants.length,
      participants: participants.slice(0, FRAME_LIST_LIMIT),
      omitted_records: state.recent.recordCount - windowSize(state.recent),
      latest_turns: groupTurns(timelineEntries(state.recent), frameRecord),
      tasks: { counts: state.tasks.counts, open: open.slice(0, FRAME_LIST_LIMIT).map(taskCopy) },
      last_verdict: state.lastVerdict,
      corrections: state.corrections,
      cancellations: state.cancellations,
    });
  },
};
