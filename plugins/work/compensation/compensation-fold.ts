/**
 * work_compensation: how often each member's runs were compensated, that is
 * undone, stopped, rejected, corrected or redone by a later record (spec
 * §4.8, the compensation review). The spec names the review but not the
 * compensation; this is Loom's definition, read from the records alone
 * (docs: /work/notes/comp.md, "What a compensation is").
 *
 * A run is the first `core.work.run.v1` on its thread naming a definition
 * record id, charged to its writer (the member), as in member_runs. Its
 * compensations, each charged to that member:
 *
 * - `cancel`: a `core.work.loop_cancel.v1` on the run thread before the
 *   member's outcome (a cancel after the end stopped nothing). One per run.
 * - `rejected`: a verdict (a KNOW with string `verdict` and `fulfills`, the
 *   judged record being `judged_by` when a record id, else `fulfills`, as
 *   for trust) whose word is a failure word (core/folds/verdict-outcome.ts)
 *   and that judges the run thread or a record the run wrote. The member's
 *   own verdicts do not count (as trust ignores self-judgments). Its writer
 *   may correct the word (KNOW correction with `verdict`) or withdraw it
 *   (DO `cancels`), which adds or removes the compensation.
 * - `corrected`: a DO whose `cancels` names a record the run wrote (by
 *   anyone: who may cancel is the permission rules' business), or a
 *   correction of one by the member itself (only a record's own actor may
 *   correct it, core/folds/corrections.ts). A cancellation's writer may
 *   withdraw it by cancelling it.
 * - `retried`: the run ended `failed`, `blocked` or `guardrail_halt`, and a
 *   later run (by any member) opened with the same non-null
 *   `source_thread`: the work had to be done again. Once per failed run.
 *
 * The records a run wrote are its opening, its deliverables (the member's
 * records on the run thread of kinds outside `core.work.*`) and its
 * outcome; turns and tool traffic are means, not work anyone judges.
 *
 * The violated assumption is the compensating record's own words:
 * `assumption`, else `violated_assumption`, else `reason`; for a retry with
 * none, the failed run's own reason (its `core.work.coercion.v1` reason or
 * its outcome's); else `unstated`.
 *
 * O(1) per record: a kind or act test and a few map lookups; a retry
 * settles each failed run once.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { verdictOutcome } from '../../../core/folds/verdict-outcome.js';
import { isValidDid } from '../../../core/records/did-syntax.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { isRecordId } from '../../../core/records/record-id.js';
import { KIND_LOOP_CANCEL, KIND_LOOP_OUTCOME, KIND_RUN } from '../../members/index.js';
import {
  addCompensation,
  addRun,
  emptyCompensationState,
  removeCompensation,
  statedAssumption,
  statedText,
  UNSTATED,
  type CompensationState,
  type RunMark,
} from './compensation-state.js';
import { compensationCheckpoint } from './compensation-checkpoint.js';

export const COMPENSATION_FOLD = 'work_compensation';
/** The paired record of a `blocked` outcome (prior art §1.19), whose `reason` is a coercion reason. */
export const KIND_COERCION = 'core.work.coercion.v1';
/** Outcomes whose run, taken up again on its source thread, counts as retried. */
export const RETRIED_OUTCOMES: ReadonlySet<string> = new Set(['failed', 'blocked', 'guardrail_halt']);

export interface CompensationFoldValue {
  runs: number;
  compensations: number;
}

export const compensationFold: Fold<CompensationState, CompensationFoldValue> = {
  name: COMPENSATION_FOLD,
  scope: 'global',
  description: "Compensations of members' runs (cancelled, rejected, corrected, retried) by member, seam and violated assumption; the review is GET /v1/work/compensation/review.",
  ignoresSystemThreads: true,
  initial: emptyCompensationState,
  apply(state, { record }) {
    const kind = record.body['kind'];
    if (kind === KIND_RUN) {
      opened(state, record);
      return state;
    }
    if (kind === KIND_LOOP_CANCEL) cancelledRun(state, record);
    else if (record.act === 'KNOW' && record.body['topic'] === 'correction') corrected(state, record);
    else if (record.act === 'KNOW' && typeof record.body['verdict'] === 'string' && typeof record.body['fulfills'] === 'string') judged(state, record);
    else if (record.act === 'DO' && isRecordId(record.body['cancels'])) cancels(state, record, record.body['cancels']);
    // Whatever else it does, a member's record on its own run thread is the run's (a reviewer's deliverable may be a verdict).
    ownRecord(state, record);
    return state;
  },
  value: (state) => ({ runs: state.runs.size, compensations: state.compensations.size }),
  checkpoint: compensationCheckpoint,
};

const compensatingWords = (body: JsonObject): string => statedAssumption(body) ?? UNSTATED;

/** The run's own record on its thread before its outcome (its outcome included), or null. */
function ownRun(state: CompensationState, record: LoomRecord): RunMark | null {
  const run = state.runs.get(record.thread);
  return run && run.actor === record.actor && run.outcome === null ? run : null;
}

function opened(state: CompensationState, record: LoomRecord): void {
  if (state.runs.has(record.thread) || !isRecordId(record.body['definition'])) return;
  const source = typeof record.body['source_thread'] === 'string' && record.body['source_thread'].length > 0 ? record.body['source_thread'] : null;
  addRun(state, { thread: record.thread, actor: record.actor, source, outcome: null, cancelled: false, reason: null });
  state.produced.set(record.id, record.thread);
  if (source === null) return;
  const failed = state.awaitingRetry.get(source);
  if (!failed) return;
  state.awaitingRetry.delete(source);
  const words = statedAssumption(record.body);
  for (const thread of failed) {
    const run = state.runs.get(thread)!;
    addCompensation(state, `${record.id}>${thread}`, { actor: run.actor, thread, seam: 'retried', assumption: words ?? run.reason ?? UNSTATED, by: record.actor, withdrawable: false });
  }
}

function cancelledRun(state: CompensationState, record: LoomRecord): void {
  const run = state.runs.get(record.thread);
  if (!run || run.outcome !== null || run.cancelled) return;
  run.cancelled = true;
  addCompensation(state, record.id, { actor: run.actor, thread: run.thread, seam: 'cancel', assumption: compensatingWords(record.body), by: record.actor, withdrawable: false });
}

function judged(state: CompensationState, record: LoomRecord): void {
  const target = isRecordId(record.judged_by) ? record.judged_by : (record.body['fulfills'] as string);
  const thread = state.produced.get(target) ?? (state.runs.has(target) ? target : undefined);
  if (thread === undefined) return;
  const run = state.runs.get(thread)!;
  const claimed = record.body['judged_by_did'];
  const judge = isValidDid(claimed) ? claimed : record.actor;
  if (judge === run.actor || record.actor === run.actor) return;
  const verdict = { thread, writer: record.actor, rejected: verdictOutcome(record.body['verdict'] as string) === 'rejected', assumption: compensatingWords(record.body), withdrawn: false };
  state.verdicts.set(record.id, verdict);
  if (verdict.rejected) addCompensation(state, record.id, { actor: run.actor, thread, seam: 'rejected', assumption: verdict.assumption, by: record.actor, withdrawable: false });
}

function corrected(state: CompensationState, record: LoomRecord): void {
  const target = record.body['supersedes'];
  if (!isRecordId(target)) return;
  const verdict = state.verdicts.get(target);
  if (verdict) {
    // A new word from the verdict's own writer; the latest one stands.
    if (verdict.writer !== record.actor || verdict.withdrawn || typeof record.body['verdict'] !== 'string') return;
    const rejected = verdictOutcome(record.body['verdict']) === 'rejected';
    if (rejected === verdict.rejected) return;
    verdict.rejected = rejected;
    verdict.assumption = statedAssumption(record.body) ?? verdict.assumption;
    if (!rejected) return removeCompensation(state, target);
    const run = state.runs.get(verdict.thread)!;
    return addCompensation(state, target, { actor: run.actor, thread: run.thread, seam: 'rejected', assumption: verdict.assumption, by: record.actor, withdrawable: false });
  }
  const thread = state.produced.get(target);
  if (thread === undefined) return;
  const run = state.runs.get(thread)!;
  // Only a record's own actor may correct it: anyone else's "correction" changes nothing (core/folds/corrections.ts).
  if (record.actor !== run.actor) return;
  // A correction of a correction corrects the same work again.
  state.produced.set(record.id, thread);
  addCompensation(state, record.id, { actor: run.actor, thread, seam: 'corrected', assumption: compensatingWords(record.body), by: record.actor, withdrawable: false });
}

function cancels(state: CompensationState, record: LoomRecord, target: string): void {
  const verdict = state.verdicts.get(target);
  if (verdict) {
    if (verdict.writer !== record.actor || verdict.withdrawn) return;
    verdict.withdrawn = true;
    return removeCompensation(state, target);
  }
  const standing = state.compensations.get(target);
  if (standing) {
    // Cancelling a cancellation withdraws it; only its writer may, so no one erases another's account.
    if (standing.withdrawable && standing.by === record.actor) removeCompensation(state, target);
    return;
  }
  const thread = state.produced.get(target);
  if (thread === undefined) return;
  const run = state.runs.get(thread)!;
  addCompensation(state, record.id, { actor: run.actor, thread, seam: 'corrected', assumption: compensatingWords(record.body), by: record.actor, withdrawable: true });
}

/** The member's own records on its run thread: its outcome, its coercion reason, its deliverables. */
function ownRecord(state: CompensationState, record: LoomRecord): void {
  const kind = record.body['kind'];
  if (kind === KIND_COERCION) {
    // The coercion may follow the blocked outcome it explains.
    const run = state.runs.get(record.thread);
    if (run && run.actor === record.actor) run.reason = statedText(record.body, 'reason') ?? run.reason;
    return;
  }
  const run = ownRun(state, record);
  if (!run) return;
  if (kind === KIND_LOOP_OUTCOME) {
    run.outcome = typeof record.body['outcome'] === 'string' ? record.body['outcome'] : 'unknown';
    run.reason = run.reason ?? statedText(record.body, 'reason');
    state.produced.set(record.id, run.thread);
    if (run.source !== null && RETRIED_OUTCOMES.has(run.outcome)) {
      const waiting = state.awaitingRetry.get(run.source);
      if (waiting) waiting.push(run.thread);
      else state.awaitingRetry.set(run.source, [run.thread]);
    }
    return;
  }
  // Turns, tool calls and results are the means of the work, not work anyone judges.
  if (typeof kind === 'string' && kind.startsWith('core.work.')) return;
  state.produced.set(record.id, run.thread);
}
