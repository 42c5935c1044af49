/**
 * structure_score (spec §2.6; research wave3-agents §4): deterministic checks
 * of a run's records, no model needed, so the same suite over the same runs
 * always gives the same figure. Pure.
 *
 * Per (case, run) each applicable check passes or fails:
 *   outcome_completed       the run ended with outcome `completed` (always applies)
 *   required_tools          the tools called match `expected_tools` per the
 *                           case's trajectory mode (applies when the case lists them)
 *   no_forbidden_tool       no call to a `forbidden_tools` tool (applies when it lists some)
 *   tool_inputs_valid       every call's input validates against its tool's
 *                           inputSchema; a tool the instance does not know
 *                           fails (applies when the run called a tool)
 *   declared_kinds_written  the member wrote every required kind in the run:
 *                           the case's `required_kinds`, else the definition's
 *                           declares_kinds (applies when that list is not empty)
 *   ceilings_respected      turns ≤ max_turns and spend ≤ ceiling of the run
 *                           record, and the case's own ceilings (applies when any is set)
 *   calls_answered          every call has a result with its call_id (applies when the run called a tool)
 *
 * A check that does not apply is left out rather than passed, so nothing
 * scores by having nothing to check. structure_score is the weighted mean of
 * passed checks, each weighing its case's weight; the per-check and per-case
 * counts are kept beside it, so with equal weights the score is exactly
 * Σ passed / Σ total of the `checks` table.
 */
import type { RunLog } from './run-log.js';
import type { EvalCase, TrajectoryMode } from './suite.js';

export const CHECKS = ['outcome_completed', 'required_tools', 'no_forbidden_tool', 'tool_inputs_valid', 'declared_kinds_written', 'ceilings_respected', 'calls_answered'] as const;
export type CheckName = (typeof CHECKS)[number];

export interface JudgeContext {
  /** The definition's declares_kinds: what a case requires when it names no kinds. */
  readonly declaresKinds: readonly string[];
  /** Whether `input` is a valid input of `tool`; false for a tool the instance does not know. */
  inputValid(tool: string, input: unknown): boolean;
}

export interface CheckResult {
  readonly check: CheckName;
  readonly passed: boolean;
}

/** Whether the case judges this run: every run, or those tagged with its `select.tag`. */
export function caseSelects(evalCase: EvalCase, log: RunLog): boolean {
  const tag = evalCase.select?.tag;
  return tag === undefined || log.tags.includes(tag);
}

/** The applicable checks of one case over one run, in CHECKS order. */
export function judgeRun(evalCase: EvalCase, log: RunLog, context: JudgeContext): CheckResult[] {
  const results: CheckResult[] = [];
  const add = (check: CheckName, passed: boolean) => results.push({ check, passed });
  const called = log.calls.map((call) => call.tool ?? '');

  add('outcome_completed', log.outcome?.outcome === 'completed');
  if (evalCase.expected_tools !== undefined) add('required_tools', trajectoryMatches(evalCase.trajectory ?? 'superset', evalCase.expected_tools, called));
  const forbidden = evalCase.forbidden_tools ?? [];
  if (forbidden.length > 0) add('no_forbidden_tool', !called.some((tool) => forbidden.includes(tool)));
  if (log.calls.length > 0) add('tool_inputs_valid', log.calls.every((call) => call.tool !== null && context.inputValid(call.tool, call.input)));
  const required = evalCase.required_kinds ?? context.declaresKinds;
  if (required.length > 0) add('declared_kinds_written', required.every((kind) => log.written.has(kind)));
  const ceilings = ceilingsOf(evalCase, log);
  if (ceilings.length > 0) add('ceilings_respected', ceilings.every(([used, ceiling]) => used <= ceiling));
  if (log.calls.length > 0) add('calls_answered', log.calls.every((call) => call.callId !== null && log.answered.has(call.callId)));
  return results;
}

/**
 * Trajectory match over tool names (agentevals' modes):
 *   strict     the same calls in the same order
 *   unordered  the same calls, any order (as a multiset)
 *   subset     no call beyond the expected ones (each tool at most as often as listed)
 *   superset   at least the expected calls (each tool at least as often as listed); others allowed
 */
export function trajectoryMatches(mode: TrajectoryMode, expected: readonly string[], called: readonly string[]): boolean {
  if (mode === 'strict') return expected.length === called.length && expected.every((tool, i) => called[i] === tool);
  const want = counts(expected);
  const got = counts(called);
  switch (mode) {
    case 'unordered':
      return want.size === got.size && [...want].every(([tool, n]) => got.get(tool) === n);
    case 'subset':
      return [...got].every(([tool, n]) => n <= (want.get(tool) ?? 0));
    case 'superset':
      return [...want].every(([tool, n]) => (got.get(tool) ?? 0) >= n);
  }
}

function counts(tools: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const tool of tools) out.set(tool, (out.get(tool) ?? 0) + 1);
  return out;
}

/**
 * [used, ceiling] pairs. Turns and spend are the larger of what the outcome
 * reports and what the turn records add up to: a run cannot pass a ceiling by
 * under-reporting in one of the two places.
 */
function ceilingsOf(evalCase: EvalCase, log: RunLog): Array<[number, number]> {
  const reportedTurns = typeof log.outcome?.turns === 'number' ? log.outcome.turns : 0;
  const reportedSpend = typeof log.outcome?.spentUsd === 'number' ? log.outcome.spentUsd : 0;
  const turns = Math.max(log.turns, reportedTurns);
  const spend = Math.max(log.turnCostUsd, reportedSpend);
  const pairs: Array<[number, number]> = [];
  if (log.maxTurns !== null) pairs.push([turns, log.maxTurns]);
  if (log.ceilingUsd !== null) pairs.push([spend, log.ceilingUsd]);
  const own = evalCase.ceilings ?? {};
  if (own.max_turns !== undefined) pairs.push([turns, own.max_turns]);
  if (own.max_spend_usd !== undefined) pairs.push([spend, own.max_spend_usd]);
  if (own.max_tool_calls !== undefined) pairs.push([log.calls.length, own.max_tool_calls]);
  return pairs;
}

export interface CheckCount {
  passed: number;
  total: number;
}

export interface CaseTally {
  id: string;
  weight: number;
  /** Runs this case judged. */
  runs: number;
  passed: number;
  total: number;
  /** passed / total, or null when it judged no run. */
  score: number | null;
}

export interface StructureResult {
  /** The weighted mean of passed checks, or null when no check applied (no run judged). */
  structure_score: number | null;
  checks: Record<CheckName, CheckCount>;
  cases: CaseTally[];
}

/** Adds up (case, run) judgements into the score and its explanation. */
export class StructureTally {
  private readonly checks = Object.fromEntries(CHECKS.map((check) => [check, { passed: 0, total: 0 }])) as Record<CheckName, CheckCount>;
  private readonly cases: CaseTally[];
  private weightedPassed = 0;
  private weightedTotal = 0;

  constructor(cases: readonly EvalCase[]) {
    this.cases = cases.map((c) => ({ id: c.id, weight: c.weight ?? 1, runs: 0, passed: 0, total: 0, score: null }));
  }

  add(caseIndex: number, results: readonly CheckResult[]): void {
    const tally = this.cases[caseIndex]!;
    tally.runs++;
    for (const { check, passed } of results) {
      this.checks[check].total++;
      tally.total++;
      this.weightedTotal += tally.weight;
      if (passed) {
        this.checks[check].passed++;
        tally.passed++;
        this.weightedPassed += tally.weight;
      }
    }
  }

  result(): StructureResult {
    return {
      structure_score: this.weightedTotal === 0 ? null : this.weightedPassed / this.weightedTotal,
      checks: Object.fromEntries(CHECKS.map((check) => [check, { ...this.checks[check] }])) as Record<CheckName, CheckCount>,
      cases: this.cases.map((c) => ({ ...c, score: c.total === 0 ? null : c.passed / c.total })),
    };
  }
}
