import { expect } from 'chai';
import { Type } from 'typebox';
import { asRecords, DELIVERABLE, passingRun, step, type RunStep } from '../../../test/members/run-fixture.js';
import { TOOL_READ, TOOL_WRITE } from '../../../test/members/member-tools-plugin.js';
import { runLogOf, type RunLog } from './run-log.js';
import { caseSelects, CHECKS, judgeRun, StructureTally, trajectoryMatches, type CheckName, type JudgeContext } from './structure-score.js';
import type { EvalCase } from './suite.js';
import { ToolInputCheck } from './tool-input-check.js';

const MEMBER = 'did:sync:agent:reviewer-0123456789abcdef';
const THREAD = 'th_' + 'a'.repeat(64);
const DEFINITION = 'd'.repeat(64);

const input = Type.Object({ thread: Type.String() }, { additionalProperties: false });
const registry = new Map([
  [TOOL_READ, { inputSchema: input }],
  [TOOL_WRITE, { inputSchema: input }],
  ['delete_thread', { inputSchema: input }],
]);
const inputs = new ToolInputCheck({ get: (name) => registry.get(name) as never });
const context: JudgeContext = { declaresKinds: [DELIVERABLE], inputValid: (tool, value) => inputs.inputValid(tool, value) };

/** Every check applies to this case over a passing run. */
const FULL: EvalCase = { id: 'full', expected_tools: [TOOL_READ, TOOL_WRITE], trajectory: 'strict', forbidden_tools: ['delete_thread'], ceilings: { max_turns: 3 } };

const log = (steps: readonly RunStep[]): RunLog => runLogOf(asRecords(MEMBER, THREAD, steps))!;
const verdicts = (evalCase: EvalCase, steps: readonly RunStep[]): Partial<Record<CheckName, boolean>> =>
  Object.fromEntries(judgeRun(evalCase, log(steps), context).map((r) => [r.check, r.passed]));

/** The passing run with the step at `index` replaced (or removed when `by` is null). */
function changed(index: number, by: RunStep | null, steps = passingRun(DEFINITION)): RunStep[] {
  const copy = [...steps];
  if (by === null) copy.splice(index, 1);
  else copy[index] = by;
  return copy;
}

describe('structure score', () => {
  it('passes every check on a run that does what the case asks', () => {
    expect(verdicts(FULL, passingRun(DEFINITION))).to.deep.equal(Object.fromEntries(CHECKS.map((check) => [check, true])));
  });

  it('outcome_completed fails on any other outcome, and on a run with none yet', () => {
    expect(verdicts(FULL, changed(8, step.outcome('max_turns'))).outcome_completed).to.equal(false);
    expect(verdicts(FULL, changed(8, step.outcome('cancelled'))).outcome_completed).to.equal(false);
    expect(verdicts(FULL, changed(8, null)).outcome_completed).to.equal(false);
  });

  it('required_tools fails when the calls do not match the trajectory mode', () => {
    const swapped = [...passingRun(DEFINITION)];
    [swapped[2], swapped[4]] = [swapped[4]!, swapped[2]!];
    expect(verdicts(FULL, swapped).required_tools).to.equal(false);
    expect(verdicts({ ...FULL, trajectory: 'unordered' }, swapped).required_tools).to.equal(true);
    expect(verdicts({ ...FULL, expected_tools: [TOOL_READ, TOOL_READ], trajectory: 'superset' }, passingRun(DEFINITION)).required_tools).to.equal(false);
    // Without expected_tools the check does not apply.
    expect(verdicts({ id: 'none' }, passingRun(DEFINITION))).to.not.have.property('required_tools');
  });

  it('matches trajectories strict, unordered, subset and superset', () => {
    const table: Array<[Parameters<typeof trajectoryMatches>[0], string[], string[], boolean]> = [
      ['strict', ['a', 'b'], ['a', 'b'], true],
      ['strict', ['a', 'b'], ['b', 'a'], false],
      ['strict', ['a'], ['a', 'a'], false],
      ['unordered', ['a', 'b'], ['b', 'a'], true],
      ['unordered', ['a', 'b'], ['a', 'b', 'b'], false],
      ['unordered', [], [], true],
      ['subset', ['a', 'b'], ['a'], true],
      ['subset', ['a', 'b'], [], true],
      ['subset', ['a'], ['a', 'c'], false],
      ['subset', ['a'], ['a', 'a'], false],
      ['superset', ['a'], ['a', 'c'], true],
      ['superset', ['a', 'a'], ['a', 'c'], false],
      ['superset', [], ['x'], true],
    ];
    for (const [mode, expected, called, match] of table) expect(trajectoryMatches(mode, expected, called), `${mode} ${expected} vs ${called}`).to.equal(match);
  });

  it('no_forbidden_tool fails when a forbidden tool is called', () => {
    const steps = changed(4, step.call('c2', 'delete_thread', { thread: 'th_x' }));
    expect(verdicts({ id: 'f', forbidden_tools: ['delete_thread'] }, steps).no_forbidden_tool).to.equal(false);
    expect(verdicts({ id: 'f', forbidden_tools: ['delete_thread'] }, passingRun(DEFINITION)).no_forbidden_tool).to.equal(true);
  });

  it("tool_inputs_valid fails on an input outside the tool's schema, and on a tool the instance does not know", () => {
    expect(verdicts(FULL, changed(2, step.call('c1', TOOL_READ, { thread: 42 }))).tool_inputs_valid).to.equal(false);
    expect(verdicts(FULL, changed(2, step.call('c1', TOOL_READ, { thread: 'th_x', extra: true }))).tool_inputs_valid).to.equal(false);
    expect(verdicts({ id: 'u' }, changed(2, step.call('c1', 'no_such_tool', { thread: 'th_x' }))).tool_inputs_valid).to.equal(false);
  });

  it("declared_kinds_written fails when a required kind is not written: the case's kinds, else the definition's", () => {
    const silent = changed(7, null);
    expect(verdicts(FULL, silent).declared_kinds_written).to.equal(false);
    expect(verdicts({ ...FULL, required_kinds: ['acme.other.v1'] }, passingRun(DEFINITION)).declared_kinds_written).to.equal(false);
    expect(verdicts({ ...FULL, required_kinds: [] }, silent)).to.not.have.property('declared_kinds_written');
    // Someone else writing the kind on the run's thread does not count for the member.
    expect(verdicts(FULL, changed(7, { ...step.write(), actor: 'did:sync:user:helper' })).declared_kinds_written).to.equal(false);
  });

  it("ceilings_respected fails past the run's max_turns or ceiling_usd, or the case's own ceilings", () => {
    const steps = passingRun(DEFINITION);
    expect(verdicts(FULL, changed(0, step.open({ definition: DEFINITION, max_turns: 1 }), steps)).ceilings_respected).to.equal(false);
    expect(verdicts(FULL, changed(8, step.outcome('completed', 2, 1.5), steps)).ceilings_respected).to.equal(false);
    expect(verdicts({ ...FULL, ceilings: { max_tool_calls: 1 } }, steps).ceilings_respected).to.equal(false);
    expect(verdicts({ ...FULL, ceilings: { max_spend_usd: 0.01 } }, steps).ceilings_respected).to.equal(false);
    // Turns are the larger of the outcome's report and the turn records: under-reporting does not pass.
    expect(verdicts({ ...FULL, ceilings: { max_turns: 1 } }, changed(8, step.outcome('completed', 1, 0.02), steps)).ceilings_respected).to.equal(false);
    const unbounded = changed(0, step.open({ definition: DEFINITION, max_turns: null, ceiling_usd: null }), steps);
    expect(verdicts({ id: 'no ceilings' }, unbounded)).to.not.have.property('ceilings_respected');
  });

  it('calls_answered fails when a call has no result with its call_id', () => {
    expect(verdicts(FULL, changed(5, null)).calls_answered).to.equal(false);
    expect(verdicts(FULL, changed(5, step.result('c9'))).calls_answered).to.equal(false);
    expect(verdicts(FULL, changed(5, step.result('c2', false))).calls_answered, 'a failed result still answers').to.equal(true);
  });

  it('leaves out the checks with nothing to check, and what others wrote on the run thread', () => {
    const quiet = [step.open({ definition: DEFINITION }), step.turn(1), step.write(), { ...step.call('x', 'delete_thread', {}), actor: 'did:sync:user:intruder' }, step.outcome('completed', 1, 0.01)];
    expect(verdicts({ id: 'q', forbidden_tools: ['delete_thread'] }, quiet)).to.deep.equal({ outcome_completed: true, no_forbidden_tool: true, declared_kinds_written: true, ceilings_respected: true });
  });

  it('stops reading a run at its first outcome', () => {
    const late = [...passingRun(DEFINITION), step.call('c3', 'delete_thread', { thread: 'th_x' })];
    const read = log(late);
    expect(read.calls).to.have.length(2);
    expect(read.records).to.equal(9);
    expect(read.through).to.equal(asRecords(MEMBER, THREAD, late)[8]!.id);
  });

  it('selects runs by tag when the case says so', () => {
    expect(caseSelects({ id: 't', select: { tag: 'triage' } }, log(passingRun(DEFINITION, ['triage'])))).to.equal(true);
    expect(caseSelects({ id: 't', select: { tag: 'triage' } }, log(passingRun(DEFINITION, ['review'])))).to.equal(false);
    expect(caseSelects({ id: 'all' }, log(passingRun(DEFINITION)))).to.equal(true);
  });

  it('is the weighted mean of passed checks, with per-check and per-case counts that explain it', () => {
    const cases: EvalCase[] = [FULL, { id: 'heavy', weight: 3, forbidden_tools: [TOOL_WRITE] }];
    const tally = new StructureTally(cases);
    const runs = [passingRun(DEFINITION), changed(5, null)];
    for (const steps of runs) for (const [i, evalCase] of cases.entries()) tally.add(i, judgeRun(evalCase, log(steps), context));
    const result = tally.result();
    // full: 7 checks × 2 runs, one failure (calls_answered on run 2); heavy: 6 checks × 2 runs, 3 failures (no_forbidden_tool on both, calls_answered on run 2).
    expect(result.cases).to.deep.equal([
      { id: 'full', weight: 1, runs: 2, passed: 13, total: 14, score: 13 / 14 },
      { id: 'heavy', weight: 3, runs: 2, passed: 9, total: 12, score: 9 / 12 },
    ]);
    expect(result.checks.calls_answered).to.deep.equal({ passed: 2, total: 4 });
    expect(result.checks.no_forbidden_tool).to.deep.equal({ passed: 2, total: 4 });
    expect(result.checks.outcome_completed).to.deep.equal({ passed: 4, total: 4 });
    expect(result.structure_score).to.equal((13 * 1 + 9 * 3) / (14 * 1 + 12 * 3));
    const equalWeights = new StructureTally([FULL]);
    for (const steps of runs) equalWeights.add(0, judgeRun(FULL, log(steps), context));
    const { checks, structure_score } = equalWeights.result();
    const sum = (key: 'passed' | 'total') => Object.values(checks).reduce((n, c) => n + c[key], 0);
    expect(structure_score).to.equal(sum('passed') / sum('total'));
  });

  it('gives the same result for the same runs every time, and null when nothing was judged', () => {
    const score = () => {
      const tally = new StructureTally([FULL]);
      for (const steps of [passingRun(DEFINITION), changed(7, null), changed(8, step.outcome('failed'))]) tally.add(0, judgeRun(FULL, log(steps), context));
      return tally.result();
    };
    expect(score()).to.deep.equal(score());
    expect(new StructureTally([FULL]).result().structure_score).to.equal(null);
  });
});
