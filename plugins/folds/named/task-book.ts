/**
 * Tasks and their states, from the task INTEND and its follow-ups; shared by
 * the task_list fold (every task), the frame (a thread's tasks) and the
 * rollup (counts only). Each record is applied in O(1).
 *
 * - A task is an INTEND with `body.task === true`, or with a string
 *   `assigned_to` or `alias` (the spec's task-opening conventions), unless
 *   `body.task === false`.
 * - A KNOW whose `fulfills` names the task (and that carries no verdict) is
 *   its completion: the task is `done`. A newer completion replaces the
 *   older one and clears the verdict (the new work awaits judgment).
 * - A KNOW with a `verdict` whose `fulfills` (else its `judged_by`) names the
 *   task or its completion judges it: a success word (`accept`, `pass`, ...)
 *   → `approved`, a failure word (`reject`, `fail`, ...) → `rejected`, the
 *   words trust counts (core/folds/verdict-outcome.ts); any other word is kept as the
 *   verdict and leaves the state.
 *   A verdict by the actor who wrote the completion is self-judgment and
 *   changes nothing (as trust ignores it).
 * - A DO whose `cancels` names the task: `cancelled`. One naming the
 *   cancellation, completion or verdict in force withdraws it.
 * - A correction (../corrections.ts) by the opener changes the task's
 *   fields; one by the verdict's author superseding the verdict in force
 *   changes the verdict word. `corrected_by` is a flag next to the state,
 *   not a state: a corrected task is still open, done, ...
 * State precedence: cancelled, then the verdict (rejected, approved), then
 * done, else open.
 *
 * Memory stays small: text fields are clipped, every open task is kept, and
 * of the others only the latest `closedKept` to leave `open` (older ones are
 * dropped from the list, stay counted, and their later follow-ups are ignored).
 */
import type { JsonObject, JsonValue } from '../../../core/records/json.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { cancelledBy, correctionFields, mayCorrect, supersededBy } from '../../../core/folds/corrections.js';
import { clip, textField } from './record-text.js';
import { verdictOutcome } from '../../../core/folds/verdict-outcome.js';

export const TASK_STATES = ['open', 'done', 'approved', 'rejected', 'cancelled'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export interface TaskMark {
  record: string;
  actor: string;
}

export interface TaskItem {
  /** The task INTEND's record id. */
  id: string;
  thread: string;
  /** Sequence of the task INTEND. */
  sequence: number;
  opened_by: string;
  goal: string | null;
  alias: string | null;
  assigned_to: string | null;
  domain: string | null;
  priority: string | number | null;
  labels: string[];
  namespace: string | null;
  state: TaskState;
  /** The completion in force (a KNOW fulfilling the task). */
  done_by: TaskMark | null;
  /** The verdict in force. */
  verdict: (TaskMark & { verdict: string }) | null;
  /** The cancellation in force. */
  cancelled_by: TaskMark | null;
  /** The latest correction of the task's fields, when corrected. */
  corrected_by: string | null;
}

export type TaskCounts = Record<TaskState, number> & { total: number; corrected: number };

type LinkRole = 'completion' | 'verdict' | 'cancel' | 'correction';

/** A follow-up record: which task it concerns, how, and who wrote it. */
interface Link {
  task: string;
  role: LinkRole;
  actor: string;
  /** Corrections: the record whose content they correct (the task or a verdict). */
  root?: string;
}

export interface TaskBookOptions {
  /** Keep goals, aliases, labels and the like (off for a fold that only counts). @default true */
  readonly detail?: boolean;
  /** Tasks no longer open that are kept (the latest to leave open). */
  readonly closedKept: number;
}

export interface TaskBook {
  readonly detail: boolean;
  readonly closedKept: number;
  /** Kept tasks, in the order they were opened. */
  tasks: Map<string, TaskItem>;
  links: Map<string, Link>;
  /** Per task, the follow-up records linked to it (dropped with the task). */
  linksOf: Map<string, string[]>;
  /** Kept tasks that are not open, in the order they left open (the first is dropped first). */
  closed: Map<string, true>;
  counts: TaskCounts;
  /** Tasks dropped from the list (still counted). */
  evicted: number;
}

const TEXT_LIMITS = { goal: 500, alias: 128, assigned_to: 512, domain: 128, namespace: 256 } as const;
const TASK_FIELDS = ['goal', 'alias', 'assigned_to', 'domain', 'priority', 'labels', 'namespace'] as const;
const MAX_LABELS = 16;

export function newTaskBook(options: TaskBookOptions): TaskBook {
  return {
    detail: options.detail ?? true,
    closedKept: options.closedKept,
    tasks: new Map(),
    links: new Map(),
    linksOf: new Map(),
    closed: new Map(),
    counts: { open: 0, done: 0, approved: 0, rejected: 0, cancelled: 0, total: 0, corrected: 0 },
    evicted: 0,
  };
}

export function isTaskIntend(record: LoomRecord): boolean {
  if (record.act !== 'INTEND') return false;
  const body = record.body;
  if (body['task'] === false) return false;
  return body['task'] === true || typeof body['assigned_to'] === 'string' || typeof body['alias'] === 'string';
}

function priorityOf(value: JsonValue | undefined): string | number | null {
  if (typeof value === 'string') return clip(value, 32);
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return null;
}

function labelsOf(value: JsonValue | undefined): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((label): label is string => typeof label === 'string')
    .slice(0, MAX_LABELS)
    .map((label) => clip(label, 64));
}

/** Sets the task's fields from the keys of `body` that name one (all of them when `all`). */
function setFields(book: TaskBook, task: TaskItem, body: JsonObject, all: boolean): void {
  if (!book.detail) return;
  for (const field of TASK_FIELDS) {
    if (!all && !(field in body)) continue;
    if (field === 'priority') task.priority = priorityOf(body['priority']);
    else if (field === 'labels') task.labels = labelsOf(body['labels']);
    else task[field] = textField(body, field, TEXT_LIMITS[field]);
  }
}

function stateOf(task: TaskItem): TaskState {
  if (task.cancelled_by) return 'cancelled';
  const judged = task.verdict ? verdictOutcome(task.verdict.verdict) : null;
  if (judged) return judged;
  if (task.done_by) return 'done';
  return 'open';
}

function link(book: TaskBook, record: LoomRecord, entry: Link): void {
  book.links.set(record.id, entry);
  const list = book.linksOf.get(entry.task);
  if (list) list.push(record.id);
  else book.linksOf.set(entry.task, [record.id]);
}

/** Re-derives the state after a change, keeping counts and the eviction order. */
function settle(book: TaskBook, task: TaskItem): void {
  const next = stateOf(task);
  const previous = task.state;
  if (next === previous) return;
  book.counts[previous] -= 1;
  book.counts[next] += 1;
  task.state = next;
  book.closed.delete(task.id);
  if (next !== 'open') book.closed.set(task.id, true);
  while (book.closed.size > book.closedKept) {
    const oldest = book.closed.keys().next().value!;
    book.closed.delete(oldest);
    book.tasks.delete(oldest);
    for (const id of book.linksOf.get(oldest) ?? []) book.links.delete(id);
    book.linksOf.delete(oldest);
    book.evicted += 1;
  }
}

/** The task a record names: the task itself, or the task of a follow-up with one of `roles`. */
function taskNamed(book: TaskBook, id: string, roles: readonly LinkRole[]): { task: TaskItem; via: Link | null } | null {
  const task = book.tasks.get(id);
  if (task) return { task, via: null };
  const via = book.links.get(id);
  if (!via || !roles.includes(via.role)) return null;
  const linked = book.tasks.get(via.task);
  return linked ? { task: linked, via } : null;
}

export function applyToTaskBook(book: TaskBook, sequence: number, record: LoomRecord): void {
  const body = record.body;
  if (isTaskIntend(record)) {
    if (book.tasks.has(record.id)) return;
    const task: TaskItem = {
      id: record.id,
      thread: record.thread,
      sequence,
      opened_by: record.actor,
      goal: null,
      alias: null,
      assigned_to: null,
      domain: null,
      priority: null,
      labels: [],
      namespace: null,
      state: 'open',
      done_by: null,
      verdict: null,
      cancelled_by: null,
      corrected_by: null,
    };
    setFields(book, task, body, true);
    book.tasks.set(task.id, task);
    book.counts.open += 1;
    book.counts.total += 1;
    return;
  }

  const supersedes = supersededBy(record);
  if (supersedes !== null) return applyCorrection(book, record, supersedes);

  const cancels = cancelledBy(record);
  if (cancels !== null) return applyCancellation(book, record, cancels);

  if (record.act !== 'KNOW') return;
  const mark = { record: record.id, actor: record.actor };
  const verdict = body['verdict'];
  if (typeof verdict === 'string') {
    const target = typeof body['fulfills'] === 'string' ? body['fulfills'] : record.judged_by;
    const found = target === null ? null : taskNamed(book, target, ['completion']);
    // A verdict on a completion judges it only while it is the work in force.
    if (!found || (found.via && found.task.done_by?.record !== target)) return;
    const worker = found.via ? found.via.actor : (found.task.done_by?.actor ?? null);
    if (worker === record.actor) return; // self-judgment
    found.task.verdict = { ...mark, verdict: clip(verdict, 64) };
    link(book, record, { task: found.task.id, role: 'verdict', actor: record.actor });
    return settle(book, found.task);
  }
  const fulfills = body['fulfills'];
  if (typeof fulfills === 'string') {
    const task = book.tasks.get(fulfills);
    if (!task) return;
    task.done_by = mark;
    task.verdict = null;
    link(book, record, { task: task.id, role: 'completion', actor: record.actor });
    settle(book, task);
  }
}

function applyCorrection(book: TaskBook, correction: LoomRecord, supersedes: string): void {
  const task = book.tasks.get(supersedes);
  const via = task ? null : book.links.get(supersedes);
  const owner = task ? task.opened_by : via?.actor;
  if (owner === undefined || !mayCorrect(correction, owner)) return;
  // A correction of a correction corrects what the first one corrected.
  const root = task ? supersedes : via!.role === 'correction' ? via!.root! : supersedes;
  const subject = book.tasks.get(task ? task.id : via!.task);
  if (!subject) return;
  const fields = correctionFields(correction);
  if (root === subject.id) {
    setFields(book, subject, fields, false);
    if (subject.corrected_by === null) book.counts.corrected += 1;
    subject.corrected_by = correction.id;
  } else if (subject.verdict?.record === root && typeof fields['verdict'] === 'string') {
    subject.verdict = { ...subject.verdict, verdict: clip(fields['verdict'], 64) };
  } else {
    return;
  }
  link(book, correction, { task: subject.id, role: 'correction', actor: correction.actor, root });
  settle(book, subject);
}

function applyCancellation(book: TaskBook, cancellation: LoomRecord, cancels: string): void {
  const mark = { record: cancellation.id, actor: cancellation.actor };
  const task = book.tasks.get(cancels);
  if (task) {
    task.cancelled_by = mark;
    link(book, cancellation, { task: task.id, role: 'cancel', actor: cancellation.actor });
    return settle(book, task);
  }
  const via = book.links.get(cancels);
  const subject = via ? book.tasks.get(via.task) : undefined;
  if (!via || !subject) return;
  // Withdraws the follow-up only while it is the one in force; corrections cannot be cancelled.
  if (via.role === 'cancel' && subject.cancelled_by?.record === cancels) subject.cancelled_by = null;
  else if (via.role === 'completion' && subject.done_by?.record === cancels) subject.done_by = null;
  else if (via.role === 'verdict' && subject.verdict?.record === cancels) subject.verdict = null;
  else return;
  settle(book, subject);
}

export function taskCopy(task: TaskItem): TaskItem {
  return {
    ...task,
    labels: [...task.labels],
    done_by: task.done_by && { ...task.done_by },
    verdict: task.verdict && { ...task.verdict },
    cancelled_by: task.cancelled_by && { ...task.cancelled_by },
  };
}

/** Plain JSON of the book (checkpoints). */
export function saveTaskBook(book: TaskBook): unknown {
  return {
    detail: book.detail,
    closedKept: book.closedKept,
    tasks: [...book.tasks.values()],
    links: [...book.links],
    closed: [...book.closed.keys()],
    counts: book.counts,
    evicted: book.evicted,
  };
}

export function loadTaskBook(saved: unknown): TaskBook {
  const s = saved as { detail: boolean; closedKept: number; tasks: TaskItem[]; links: [string, Link][]; closed: string[]; counts: TaskCounts; evicted: number };
  const book = newTaskBook({ detail: s.detail, closedKept: s.closedKept });
  for (const task of s.tasks) book.tasks.set(task.id, taskCopy(task));
  for (const [id, entry] of s.links) {
    book.links.set(id, { ...entry });
    const list = book.linksOf.get(entry.task);
    if (list) list.push(id);
    else book.linksOf.set(entry.task, [id]);
  }
  for (const id of s.closed) book.closed.set(id, true);
  book.counts = { ...s.counts };
  book.evicted = s.evicted;
  return book;
}
