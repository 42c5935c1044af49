import { expect } from 'chai';
import type { Act } from '../../../core/records/acts.js';
import type { JsonObject } from '../../../core/records/json.js';
import { makeRecord, type LoomRecord } from '../../../core/records/record.js';
import { computeRecordId } from '../../../core/records/record-id.js';
import { KIND_LOOP_CANCEL, KIND_LOOP_OUTCOME, KIND_RUN, KIND_TURN } from '../../members/index.js';
import { compensationCheckpoint } from './compensation-checkpoint.js';
import { compensationFold, KIND_COERCION } from './compensation-fold.js';
import { compensationReview, median } from './compensation-review.js';
import type { CompensationState } from './compensation-state.js';

const A = 'did:sync:agent:alpha-0123456789abcdef';
const B = 'did:sync:agent:beta-0123456789abcdef';
const JUDGE = 'did:sync:user:judge';
const OTHER = 'did:sync:user:other';
const DEFINITION = 'd'.repeat(64);
const SOURCE = 'th_' + 's'.repeat(20);

let clock = 0;
function rec(thread: string, actor: string, act: Act, body: JsonObject, judged_by: string | null = null): LoomRecord {
  const fields = { parents: [], thread, actor, act, body, clock: clock++, data_type: 'SCALAR' as const };
  return makeRecord(computeRecordId(fields), { ...fields, judged_by });
}
const open = (thread: string, actor: string, extra: JsonObject = {}) => rec(thread, actor, 'DO', { kind: KIND_RUN, definition: DEFINITION, goal: 'g', source_thread: null, ...extra });
const outcome = (thread: string, actor: string, value: string, extra: JsonObject = {}) => rec(thread, actor, 'KNOW', { kind: KIND_LOOP_OUTCOME, outcome: value, turns: 1, spent_usd: 0.01, ...extra });
const deliverable = (thread: string, actor: string) => rec(thread, actor, 'KNOW', { kind: 'acme.review.v1', text: 'looks good' });
const verdict = (target: LoomRecord | string, word: string, extra: JsonObject = {}, actor = JUDGE) => rec('th_verdicts', actor, 'KNOW', { verdict: word, fulfills: typeof target === 'string' ? target : target.id, ...extra });

function fold(records: readonly LoomRecord[]): CompensationState {
  let state = compensationFold.initial('');
  records.forEach((record, i) => (state = compensationFold.apply(state, { record, sequence: i + 1 })));
  return state;
}
const tally = (state: CompensationState, actor: string) => {
  const t = state.actors.get(actor)!;
  return { runs: t.runs, compensations: t.compensations, by_seam: t.bySeam, by_assumption: Object.fromEntries(t.byAssumption) };
};
const seams = (cancel = 0, rejected = 0, corrected = 0, retried = 0) => ({ cancel, rejected, corrected, retried });

describe('work_compensation fold', () => {
  it('a cancel before the end counts once, with its reason; a cancel after the end stops nothing', () => {
    const r1 = open('th_r1', A);
    const r2 = open('th_r2', A);
    const state = fold([
      r1,
      rec('th_r1', OTHER, 'DO', { kind: KIND_LOOP_CANCEL, reason: 'wrong repository' }),
      rec('th_r1', JUDGE, 'DO', { kind: KIND_LOOP_CANCEL }),
      outcome('th_r1', A, 'cancelled'),
      r2,
      outcome('th_r2', A, 'completed'),
      rec('th_r2', OTHER, 'DO', { kind: KIND_LOOP_CANCEL }),
    ]);
    expect(tally(state, A)).to.deep.equal({ runs: 2, compensations: 1, by_seam: seams(1), by_assumption: { 'wrong repository': 1 } });
  });

  it('a failure verdict on the run or its work is a rejection; a success or a self-verdict is none; its writer may correct or withdraw it', () => {
    const run = open('th_v', A);
    const work = deliverable('th_v', A);
    const end = outcome('th_v', A, 'completed');
    const rejectWork = verdict(work, 'rejected', { reason: 'tests were not run' });
    const rejectEnd = verdict(end, 'fail');
    const self = verdict(end, 'reject', {}, A);
    const passThread = verdict('th_v', 'approved');
    let state = fold([run, work, end, rejectWork, rejectEnd, self, passThread]);
    expect(tally(state, A)).to.deep.equal({ runs: 1, compensations: 2, by_seam: seams(0, 2), by_assumption: { 'tests were not run': 1, unstated: 1 } });
    // Someone else's correction or withdrawal changes nothing.
    const foreign = rec('th_verdicts', OTHER, 'DO', { cancels: rejectEnd.id });
    // The writer turns one rejection into an approval, the approval into a rejection, and withdraws the other.
    const corrected = rec('th_verdicts', JUDGE, 'KNOW', { topic: 'correction', supersedes: rejectWork.id, verdict: 'approved' });
    const flipped = rec('th_verdicts', JUDGE, 'KNOW', { topic: 'correction', supersedes: passThread.id, verdict: 'rejected', assumption: 'the goal was misread' });
    const withdrawn = rec('th_verdicts', JUDGE, 'DO', { cancels: rejectEnd.id });
    state = fold([run, work, end, rejectWork, rejectEnd, self, passThread, foreign, corrected, flipped, withdrawn]);
    expect(tally(state, A)).to.deep.equal({ runs: 1, compensations: 1, by_seam: seams(0, 1), by_assumption: { 'the goal was misread': 1 } });
  });

  it("cancelling the run's work, or the member correcting it, is a correction; a cancellation's writer may withdraw it; others' corrections change nothing", () => {
    const run = open('th_c', A);
    const work = deliverable('th_c', A);
    const turn = rec('th_c', A, 'DO', { kind: KIND_TURN, turn: 1 });
    const cancel = rec('th_else', OTHER, 'DO', { cancels: work.id, reason: 'duplicate of an earlier note' });
    const correction = rec('th_c', A, 'KNOW', { topic: 'correction', supersedes: work.id, text: 'looks wrong after all' });
    const foreign = rec('th_c', OTHER, 'KNOW', { topic: 'correction', supersedes: work.id, text: 'x' });
    const ofTurn = rec('th_else', OTHER, 'DO', { cancels: turn.id });
    let state = fold([run, work, turn, cancel, correction, foreign, ofTurn]);
    expect(tally(state, A)).to.deep.equal({ runs: 1, compensations: 2, by_seam: seams(0, 0, 2), by_assumption: { 'duplicate of an earlier note': 1, unstated: 1 } });
    state = fold([run, work, turn, cancel, correction, rec('th_x', JUDGE, 'DO', { cancels: cancel.id }), rec('th_x', OTHER, 'DO', { cancels: cancel.id })]);
    expect(tally(state, A)).to.deep.equal({ runs: 1, compensations: 1, by_seam: seams(0, 0, 1), by_assumption: { unstated: 1 } });
  });

  it('a failed, blocked or halted run taken up again on its source thread is retried, once, with its coercion reason', () => {
    const failed = open('th_f1', A, { source_thread: SOURCE });
    const blocked = open('th_f2', A, { source_thread: SOURCE });
    const completed = open('th_f3', A, { source_thread: SOURCE });
    const records = [
      failed,
      outcome('th_f1', A, 'failed'),
      blocked,
      outcome('th_f2', A, 'blocked'),
      rec('th_f2', A, 'KNOW', { kind: KIND_COERCION, reason: 'tool_unavailable', narrative: 'no shell' }),
      completed,
      outcome('th_f3', A, 'completed'),
      open('th_retry', B, { source_thread: SOURCE }),
      open('th_again', B, { source_thread: SOURCE }),
    ];
    const state = fold(records);
    expect(tally(state, A)).to.deep.equal({ runs: 3, compensations: 2, by_seam: seams(0, 0, 0, 2), by_assumption: { tool_unavailable: 1, unstated: 1 } });
    expect(tally(state, B)).to.deep.equal({ runs: 2, compensations: 0, by_seam: seams(), by_assumption: {} });
  });

  it('a checkpoint restores the same state, tallies rebuilt', () => {
    const run = open('th_k', A, { source_thread: SOURCE });
    const state = fold([run, outcome('th_k', A, 'guardrail_halt'), verdict(run, 'rejected'), open('th_k2', B, { source_thread: SOURCE, reason: 'second try' })]);
    const restored = compensationCheckpoint.load(JSON.parse(JSON.stringify(compensationCheckpoint.save(state))));
    expect(compensationReview(restored, 9)).to.deep.equal(compensationReview(state, 9));
    expect(tally(restored, A)).to.deep.include({ compensations: 2, by_seam: seams(0, 1, 0, 1) });
  });
});

describe('compensation review', () => {
  it('median of an odd and an even count, and of none', () => {
    expect(median([3, 1, 2])).to.equal(2);
    expect(median([4, 1, 3, 2])).to.equal(2.5);
    expect(median([])).to.equal(0);
  });

  it('with a median of 0 the baseline is the pooled fleet rate; with nobody compensated every score is 0', () => {
    const state = fold([open('th_p1', A), open('th_p2', B), open('th_p3', 'did:sync:agent:c'), rec('th_p1', OTHER, 'DO', { kind: KIND_LOOP_CANCEL })]);
    const review = compensationReview(state, 4);
    expect(review).to.deep.include({ fleet_median: 0, fleet_rate: 1 / 3, baseline: 1 / 3, baseline_kind: 'fleet_rate', fleet_actors: 3 });
    expect(review.data.map((r) => [r.actor, r.anomaly])).to.deep.equal([[A, 3], [B, 0], ['did:sync:agent:c', 0]]);
    const calm = compensationReview(fold([open('th_q1', A)]), 1);
    expect(calm).to.deep.include({ baseline: 0, baseline_kind: 'none' });
    expect(calm.data[0]!.anomaly).to.equal(0);
  });
});
