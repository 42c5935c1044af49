/**
 * The folds plugin: the named folds of spec §4.6 over ./named
 * (pure: records only, so the SDK recomputes them to verify an answer).
 * task_list and rollup are global, turn and frame per thread; thread_state
 * stays in core. The ledger's generic routes serve them all
 * (GET /v1/folds/{name}, GET /v1/folds/{name}/{thread}, so
 * GET /v1/folds/frame/{thread}); GET /v1/folds/rollup adds the `root` check.
 */
import { definePlugin } from '../../core/plugin/plugin.js';
import { frameFold } from './named/frame.js';
import { rollupFold } from './named/rollup.js';
import { taskListFold } from './named/task-list.js';
import { turnFold } from './named/turn.js';
import type { AnyFold } from '../../core/folds/fold.js';
import { getRollup } from './routes/get-rollup.js';

export { WHOLE_REACH } from './routes/get-rollup.js';
export * from './named/index.js';

export const NAMED_FOLDS: readonly AnyFold[] = [taskListFold, turnFold, frameFold, rollupFold];
export const FOLDS_ROUTES = [getRollup] as const;

export const foldsPlugin = definePlugin({
  name: 'folds',
  tags: {
    folds: 'Named folds: derived views computed over the records of a thread or of the whole log.',
  },
  version: '1.0.0',
  dependencies: ['ledger'],
  register(scope) {
    for (const fold of NAMED_FOLDS) scope.fold(fold);
    for (const route of FOLDS_ROUTES) scope.route(route);
    scope.capability('folds.named', true);
  },
});
