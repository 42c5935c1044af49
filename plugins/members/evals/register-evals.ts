/**
 * The evals part of the members plugin, registered from its index in one
 * call: the run index and grade folds, the suite and grade gates, the
 * scoring service, its two routes, the capability flag `members.evals`
 * (`members.evals.substance` only once a grader is bound) and the manifest's
 * `conventions.evals`, whose `substance_grading` says `absent` until then.
 */
import { resolve } from '../../../core/di/token.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import type { MemberService } from '../member-service.js';
import type { ToolRegistry } from '../tool-registry.js';
import { gradeWriterGate, suiteShapeGate } from './eval-gates.js';
import { EvalService, EvalServiceToken } from './eval-service.js';
import { memberGradesFold } from './grade-fold.js';
import { memberRunsFold } from './run-index-fold.js';
import { MemberRunsIndexToken } from './run-index-token.js';
import { getActorEvals } from './routes/get-actor-evals.js';
import { scoreEvals } from './routes/score-evals.js';
import { SubstanceGraderToken, type SubstanceGrader } from './substance-grader.js';
import { ToolInputCheck } from './tool-input-check.js';

export const EVALS_ROUTES = [scoreEvals, getActorEvals] as const;

export function registerEvals(scope: PluginScope, deps: { readonly members: MemberService; readonly tools: ToolRegistry }): void {
  const runs = scope.fold(memberRunsFold);
  const grades = scope.fold(memberGradesFold);
  scope.expose(MemberRunsIndexToken, runs);
  scope.ingestGate(suiteShapeGate);
  scope.ingestGate(gradeWriterGate);
  // A grader is bound by another plugin (none is yet): looked up once every plugin has registered.
  let grader: SubstanceGrader | null | undefined;
  const graderOf = (): SubstanceGrader | null => {
    if (grader === undefined) grader = scope.container.isRegistered(SubstanceGraderToken, true) ? resolve(scope.container, SubstanceGraderToken) : null;
    return grader;
  };
  const evals = new EvalService({
    reader: resolve(scope.container, RecordReaderToken),
    writer: resolve(scope.container, RecordWriterToken),
    members: deps.members,
    runs,
    grades,
    inputs: new ToolInputCheck(deps.tools),
    grader: graderOf,
  });
  scope.expose(EvalServiceToken, evals);
  for (const route of EVALS_ROUTES) scope.route(route);
  scope.capability('members.evals', true);
  // Flags are true or absent (absence means unsupported); the convention says outright which it is.
  scope.onStart(() => {
    if (graderOf() !== null) scope.capability('members.evals.substance', true);
  });
  scope.describe('manifest', 'conventions.evals', () => ({ score_path: '/v1/evals/score', substance_grading: graderOf() === null ? 'absent' : 'model', grader_model: graderOf()?.model ?? null }));
}
