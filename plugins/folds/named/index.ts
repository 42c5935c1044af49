export { taskListFold, TASK_LIST_FOLD, TASK_LIST_CLOSED, type TaskListValue } from './task-list.js';
export { turnFold, TURN_FOLD, TURN_WINDOW, type TurnValue, type TurnRecord, type TurnState } from './turn.js';
export { frameFold, FRAME_FOLD, FRAME_RECORDS, FRAME_LIST_LIMIT, type FrameValue, type FrameRecord, type FrameVerdict, type FrameState } from './frame.js';
export { rollupFold, ROLLUP_FOLD, ROLLUP_TOP, ROLLUP_RECENT, type RollupValue, type RollupActivity, type RollupState } from './rollup.js';
export { TASK_STATES, isTaskIntend, type TaskState, type TaskItem, type TaskMark, type TaskCounts, type TaskBook } from './task-book.js';
export { verdictOutcome } from '../../../core/folds/verdict-outcome.js';
export { recordText } from './record-text.js';
export type { Turn } from './timeline.js';
