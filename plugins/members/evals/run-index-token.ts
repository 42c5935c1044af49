/**
 * The member_runs index's handle (run-index-fold.ts), shared with the run
 * doors (plugins/members/runs/), which read the same fold. Apart from the
 * fold so the fold stays pure and the SDK can import it.
 */
import { token } from '../../../core/di/token.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { RunIndexState } from './run-index-fold.js';

export const MemberRunsIndexToken = token<OwnFold<RunIndexState>>('members.MemberRunsIndex');
