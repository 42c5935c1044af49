import { LoomError } from '../../core/errors/loom-error.js';

/** Throws the tree's refusal of a change, if any. */
export function pathProblem(problem: { code: LoomError['code']; message: string } | null): void {
  if (problem) throw new LoomError(problem.code, problem.message);
}
