import { expect } from 'chai';
import { replayFold, type FoldInput } from '../../../core/folds/fold.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { asRecords, passingRun, step, type RunStep } from '../../../test/members/run-fixture.js';
import { TOOL_READ, TOOL_WRITE } from '../../../test/members/member-tools-plugin.js';
import { memberRunsFold, type RunIndexState } from '../evals/run-index-fold.js';
import { runRowOf, stateOf, type RunRow } from './run-row.js';

const MEMBER = 'did:sync:agent:reviewer-0123456789abcdef';
const OTHER = 'did:sync:user:mallory';
const DEFINITION = 'd'.repeat(64);
const thread = (c: string) => 'th_' + c.repeat(64);
const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);

/** The fold's state after these records, each received one second after the last. */
function stateAfter(records: readonly LoomRecord[]): RunIndexState {
  let state = memberRunsFold.initial('');
  records.forEach((record, i) => {
    state = memberRunsFold.apply(state, { record, sequence: i + 1, createdAt: T0 + i * 1000 } satisfies FoldInput);
  });
  return state;
}
const rowOf = (steps: RunStep[], t = thread('a')): RunRow => runRowOf(stateAfter(asRecords(MEMBER, t, steps)).runs.get(t)!, 'Reviewer', steps.length);

describe('run row (fold over a run thread)', () => {
  it('derives every field of a completed run from its records', () => {
    const row = rowOf(passingRun(DEFINITION));
    expect(row).to.deep.include({
      object: 'run',
      thread: thread('a'),
      actor: MEMBER,
      actor_name: 'Reviewer',
      model: 'claude-sonnet-4-6',
      goal: 'review the change',
      source_thread: null,
      domain: 'code',
      definition: DEFINITION,
      prompt: null,
      frame: null,
      state: 'done',
      outcome: 'completed',
      turns: 2,
      max_turns: 5,
      spent_usd: 0.02,
      ceiling_usd: 1,
      summary: null,
      ask: null,
      tools: [TOOL_READ, TOOL_WRITE],
      narrowed: [],
      transport: 'in_process',
      tool_calls_ok: 2,
      tool_calls_failed: 0,
      input_tokens: 200,
      output_tokens: 100,
      verb: null,
      needs: null,
      reason: null,
      evidence: null,
      candidates: null,
      reported_by: null,
    });
    expect(row.started_at).to.equal(new Date(T0).toISOString());
    expect(row.ended_at).to.equal(new Date(T0 + 8000).toISOString());
  });

  it('is running until the outcome, with the tallies of the turns so far', () => {
    const row = rowOf([step.open({ definition: DEFINITION }), step.turn(1, 0.05), step.call('c1', 'read_thread', {}), step.result('c1', false), step.turn(2, 0.07)]);
    expect(row).to.deep.include({ state: 'running', outcome: null, turns: 2, tool_calls_ok: 0, tool_calls_failed: 1, ended_at: null, summary: null });
    expect(row.spent_usd).to.be.closeTo(0.12, 1e-12);
  });

  it('maps each outcome to its state (runStateOf)', () => {
    const states = ['completed', 'max_turns', 'budget_exhausted', 'cancelled', 'failed', 'blocked', 'guardrail_halt', 'something_else'].map((outcome) => stateOf({ outcome }));
    expect(states).to.deep.equal(['done', 'stopped_short', 'stopped_short', 'stopped', 'stopped', 'stopped', 'stopped', 'stopped']);
  });

  it("takes summary, spend, turns and the report fields from the member's outcome", () => {
    const outcome: RunStep = {
      act: 'KNOW',
      body: { kind: 'core.work.loop_outcome.v1', outcome: 'blocked', success: false, turns: 7, spent_usd: 0.5, budget_kind: null, summary: 'needs access', verb: 'ask', needs: ['records:write'], reason: 'no grant', evidence: ['r1'], candidates: [{ did: 'x' }], reported_by: MEMBER },
    };
    const row = rowOf([step.open({ definition: DEFINITION }), step.turn(1), outcome]);
    expect(row).to.deep.include({ state: 'stopped', turns: 7, spent_usd: 0.5, summary: 'needs access', verb: 'ask', needs: ['records:write'], reason: 'no grant', evidence: ['r1'], candidates: [{ did: 'x' }], reported_by: MEMBER });
  });

  it("ignores records on the run's thread by anyone else and everything after the first outcome", () => {
    const steps: RunStep[] = [
      step.open({ definition: DEFINITION }),
      { ...step.turn(1, 9), actor: OTHER },
      { ...step.result('x', false), actor: OTHER },
      { ...step.outcome('cancelled'), actor: OTHER },
      step.turn(1, 0.01),
      step.outcome('max_turns', 1, 0.01),
      step.turn(2, 5),
      step.outcome('completed', 9, 9),
    ];
    const row = rowOf(steps);
    expect(row).to.deep.include({ state: 'stopped_short', outcome: 'max_turns', turns: 1, spent_usd: 0.01, tool_calls_failed: 0, input_tokens: 100 });
    expect(row.ended_at).to.equal(new Date(T0 + 5000).toISOString());
  });

  it('indexes runs newest last and by member, and survives its checkpoint', () => {
    const records = [...asRecords(MEMBER, thread('a'), passingRun(DEFINITION)), ...asRecords(OTHER, thread('b'), [step.open({ definition: DEFINITION }), step.turn(1)])];
    const state = stateAfter(records);
    expect(state.order.map((e) => e.thread)).to.deep.equal([thread('a'), thread('b')]);
    expect(state.byActor.get(OTHER)!.map((e) => e.thread)).to.deep.equal([thread('b')]);
    const restored = memberRunsFold.checkpoint!.load(JSON.parse(JSON.stringify(memberRunsFold.checkpoint!.save(state))));
    expect(runRowOf(restored.runs.get(thread('a'))!, null, 9)).to.deep.equal(runRowOf(state.runs.get(thread('a'))!, null, 9));
    expect(restored.byDefinition.size).to.equal(2);
    // Applied all at once or one by one, the same value.
    expect(replayFold(memberRunsFold, '', records.map((record, i) => ({ record, sequence: i + 1 })))).to.deep.equal({ runs: 2, ended: 1 });
  });
});
