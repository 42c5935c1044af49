/**
 * task_list (global, GET /v1/folds/task_list): every task INTEND with its
 * state from its follow-ups (open, done, approved, rejected, cancelled) and
 * `corrected_by` when its fields were corrected; the rules are in
 * ./task-book.ts. Every open task is listed, and the latest TASK_LIST_CLOSED
 * tasks that left open; the counts cover every task ever opened. Records on
 * reserved and system threads are skipped.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { applyToTaskBook, loadTaskBook, newTaskBook, saveTaskBook, taskCopy, type TaskBook, type TaskCounts, type TaskItem } from './task-book.js';

export const TASK_LIST_FOLD = 'task_list';
/** Tasks no longer open that stay listed. */
export const TASK_LIST_CLOSED = 1000;

export interface TaskListValue {
  /** In the order the tasks were opened. */
  tasks: TaskItem[];
  counts: TaskCounts;
  /** Tasks no longer listed (closed long ago); still in `counts`. */
  evicted: number;
}

export const taskListFold: Fold<TaskBook, TaskListValue> = {
  name: TASK_LIST_FOLD,
  scope: 'global',
  description: 'Every task INTEND with its state from follow-ups: open, done, approved, rejected or cancelled, and corrected_by when corrected.',
  ignoresSystemThreads: true,
  initial: () => newTaskBook({ closedKept: TASK_LIST_CLOSED }),
  apply(book, { sequence, record }) {
    applyToTaskBook(book, sequence, record);
    return book;
  },
  value: (book) => ({ tasks: [...book.tasks.values()].map(taskCopy), counts: { ...book.counts }, evicted: book.evicted }),
  checkpoint: { version: 1, save: saveTaskBook, load: loadTaskBook },
};
