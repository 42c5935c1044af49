/**
 * The run doors of the members plugin (spec §4.7, §4.15), registered from
 * its index in one call: read-only rows out of the member_runs index the
 * evals part keeps (evals/run-index-fold.ts), so both read one fold.
 */
import { resolve } from '../../../core/di/token.js';
import { ClockToken } from '../../../core/engine/clock.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import { MemberRunsIndexToken } from '../evals/run-index-token.js';
import type { MemberService } from '../member-service.js';
import { optionalService } from '../optional-service.js';
import { getActorUsage } from './routes/get-actor-usage.js';
import { getRun } from './routes/get-run.js';
import { getRunProvenance } from './routes/get-run-provenance.js';
import { listActorRuns } from './routes/list-actor-runs.js';
import { listRuns } from './routes/list-runs.js';
import { RUN_SCAN_CEILING, RunScanCeilingToken, RunService, RunServiceToken } from './run-service.js';

export const RUNS_ROUTES = [listRuns, getRun, getRunProvenance, listActorRuns, getActorUsage] as const;

/** After registerEvals, which registers the member_runs fold. */
export function registerRuns(scope: PluginScope, members: MemberService): void {
  const ceiling = optionalService(scope.container, RunScanCeilingToken);
  const runs = new RunService({
    reader: resolve(scope.container, RecordReaderToken),
    members,
    runs: resolve(scope.container, MemberRunsIndexToken),
    clock: resolve(scope.container, ClockToken),
    scanCeiling: () => ceiling()?.() ?? RUN_SCAN_CEILING,
  });
  scope.expose(RunServiceToken, runs);
  for (const route of RUNS_ROUTES) scope.route(route);
  scope.capability('members.runs', true);
}
