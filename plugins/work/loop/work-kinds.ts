/**
 * The work loop's record kinds beyond the run vocabulary the members plugin
 * defines (plugins/members/evals/run-records.ts): what a provider failure, a
 * guardrail verdict, a coercion and a person's steering message look like on
 * a run's thread (spec §6 leaves their payloads open: docs/decisions.md).
 */
export const KIND_PROVIDER_ERROR = 'core.work.provider_error.v1';
export const KIND_GUARDRAIL = 'core.work.guardrail.v1';
export const KIND_COERCION = 'core.work.coercion.v1';
/** A person's words to a running member (POST /v1/runs/{thread}/events `message`): the next model call reads them. */
export const KIND_RUN_MESSAGE = 'core.work.message.v1';

/** On a dispatch thread, by the member: the run that delivered the dispatch ended (`fulfills` or `cancels` the dispatch). */
export const KIND_DISPATCH_ANSWER = 'core.work.dispatch_answer.v1';

/** Why a run was blocked (prior art §1.19 coercion reasons). */
export type CoercionReason = 'tool_unavailable' | 'ambiguous_goal' | 'precondition_failed' | 'decision_required' | 'input_invalid' | 'internal_error';

/** Which ceiling a `budget_exhausted` outcome hit. */
export type BudgetKind = 'tokens' | 'cost' | 'wall_clock' | 'daily_cost';

/** Identical failing calls (same tool, input and error code) before the next one is blocked, and blocked ones before the run halts. */
export const GUARDRAIL_THRESHOLD = 3;

/** The words a cut-off turn is followed by, so the model continues where it stopped (rebuilt identically after a restart). */
export const CONTINUE_TEXT = 'Your previous answer was cut off by the output limit. Continue exactly where you stopped.';
