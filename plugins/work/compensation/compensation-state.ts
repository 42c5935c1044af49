/**
 * The state of the work_compensation fold (compensation-fold.ts) and the
 * bookkeeping every compensation goes through: one place adds or removes a
 * compensation and keeps its actor's tally, so the tallies can never drift
 * from the compensations in force (a checkpoint saves only the latter and
 * rebuilds the former).
 */
import type { JsonObject } from '../../../core/records/json.js';

/**
 * Where a member's run was compensated (the "seam" of the spec's breakdown):
 * - `cancel`: someone stopped the run (`core.work.loop_cancel.v1` before its outcome);
 * - `rejected`: a judge's verdict rejected the run or something it wrote;
 * - `corrected`: a record the run wrote was cancelled (DO `cancels`) or corrected (KNOW correction);
 * - `retried`: the run ended failed, blocked or halted and a new run took up its source thread.
 */
export const SEAMS = ['cancel', 'rejected', 'corrected', 'retried'] as const;
export type Seam = (typeof SEAMS)[number];

/** The violated assumption of a compensation whose record states none. */
export const UNSTATED = 'unstated';
/** Assumptions are free text from records: kept to this many characters so one record cannot bloat every answer. */
export const ASSUMPTION_MAX = 120;

export interface RunMark {
  readonly thread: string;
  /** The member that ran: compensations of the run are charged to it. */
  readonly actor: string;
  readonly source: string | null;
  /** The member's first outcome, null while running. */
  outcome: string | null;
  /** A cancel was counted (one per run: the loop stops once). */
  cancelled: boolean;
  /** The run's own account of what blocked it (a coercion's or its outcome's `reason`). */
  reason: string | null;
}

export interface VerdictMark {
  readonly thread: string;
  /** The verdict's writer: only it may correct or withdraw the verdict (as for trust). */
  readonly writer: string;
  rejected: boolean;
  assumption: string;
  withdrawn: boolean;
}

export interface Compensation {
  /** Charged to: the member whose run was compensated. */
  readonly actor: string;
  readonly thread: string;
  readonly seam: Seam;
  readonly assumption: string;
  /** Who wrote the compensating record. */
  readonly by: string;
  /** A DO `cancels` compensation, which its writer may withdraw by cancelling it. */
  readonly withdrawable: boolean;
}

export interface ActorTally {
  runs: number;
  compensations: number;
  bySeam: Record<Seam, number>;
  byAssumption: Map<string, number>;
}

export interface CompensationState {
  /** By run thread. */
  runs: Map<string, RunMark>;
  /** The run's own records a verdict, correction or cancellation may name (opening, deliverables, outcome): record id → run thread. */
  produced: Map<string, string>;
  /** Verdicts on runs, by verdict id, whichever their word (a correction may turn one into a rejection). */
  verdicts: Map<string, VerdictMark>;
  /** In force, by the compensating record's id (a retry: the new run's opening id and the retried thread). */
  compensations: Map<string, Compensation>;
  /** Source thread → runs that ended failed, blocked or halted there and were not taken up again yet. */
  awaitingRetry: Map<string, string[]>;
  actors: Map<string, ActorTally>;
}

export const emptyCompensationState = (): CompensationState => ({
  runs: new Map(),
  produced: new Map(),
  verdicts: new Map(),
  compensations: new Map(),
  awaitingRetry: new Map(),
  actors: new Map(),
});

export function tallyOf(state: CompensationState, actor: string): ActorTally {
  let tally = state.actors.get(actor);
  if (!tally) state.actors.set(actor, (tally = { runs: 0, compensations: 0, bySeam: { cancel: 0, rejected: 0, corrected: 0, retried: 0 }, byAssumption: new Map() }));
  return tally;
}

export function addRun(state: CompensationState, run: RunMark): void {
  state.runs.set(run.thread, run);
  tallyOf(state, run.actor).runs++;
}

export function addCompensation(state: CompensationState, key: string, compensation: Compensation): void {
  if (state.compensations.has(key)) return;
  state.compensations.set(key, compensation);
  const tally = tallyOf(state, compensation.actor);
  tally.compensations++;
  tally.bySeam[compensation.seam]++;
  tally.byAssumption.set(compensation.assumption, (tally.byAssumption.get(compensation.assumption) ?? 0) + 1);
}

export function removeCompensation(state: CompensationState, key: string): void {
  const compensation = state.compensations.get(key);
  if (!compensation) return;
  state.compensations.delete(key);
  const tally = tallyOf(state, compensation.actor);
  tally.compensations--;
  tally.bySeam[compensation.seam]--;
  const left = (tally.byAssumption.get(compensation.assumption) ?? 1) - 1;
  if (left > 0) tally.byAssumption.set(compensation.assumption, left);
  else tally.byAssumption.delete(compensation.assumption);
}

/** A record's own words for a string field, trimmed and bounded; null when it states none. */
export function statedText(body: JsonObject, key: string): string | null {
  const value = body[key];
  if (typeof value !== 'string') return null;
  const text = value.trim().replace(/\s+/g, ' ').slice(0, ASSUMPTION_MAX);
  return text.length === 0 ? null : text;
}

/** The assumption a compensating record says was violated: `assumption`, else `violated_assumption`, else `reason`; null when it says none. */
export function statedAssumption(body: JsonObject): string | null {
  return statedText(body, 'assumption') ?? statedText(body, 'violated_assumption') ?? statedText(body, 'reason');
}
