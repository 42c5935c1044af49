import { expect } from 'chai';
import { replayFold } from '../../../core/folds/fold.js';
import { frameFold, FRAME_RECORDS, type FrameValue } from './frame.js';
import { ALICE, BOB, CAROL, checkBatchSplits, TestLog, TH_1 } from '../../../test/helpers/test-log.js';

const value = (log: TestLog): FrameValue => replayFold(frameFold, TH_1, log.onThread(TH_1));

describe('frame fold', () => {
  it('renders a thread in one answer: title, status, participants with roles, latest turns, open tasks, last verdict', () => {
    const log = new TestLog();
    const task = log.add(ALICE, 'INTEND', { task: true, goal: 'Write the release notes', assigned_to: BOB });
    const other = log.add(ALICE, 'INTEND', { task: true, goal: 'Tag the release' });
    log.add(BOB, 'DO', { tool: 'editor', dispatch_handled: true });
    const done = log.add(BOB, 'KNOW', { fulfills: task.id, summary: 'notes written' });
    const verdict = log.add(CAROL, 'KNOW', { fulfills: done.id, verdict: 'accept', summary: 'clear' }, { judged_by: done.id });
    log.add('did:sync:user:dave', 'KNOW', { observation: 'watching' });
    const v = value(log);
    expect(v).to.deep.include({ thread: TH_1, title: 'Write the release notes', goal: 'Write the release notes', status: 'closed', opened_by: ALICE, record_count: 6, turn_count: 4, participant_count: 4, omitted_records: 0 });
    expect(v.closed_by).to.deep.equal({ record: done.id, actor: BOB, reason: 'fulfilled' });
    expect(v.participants.map((p) => [p.actor, p.roles, p.acts])).to.deep.equal([
      [ALICE, ['opener'], { INTEND: 2 }],
      [BOB, ['adapter', 'worker'], { DO: 1, KNOW: 1 }],
      [CAROL, ['reviewer'], { KNOW: 1 }],
      ['did:sync:user:dave', ['observer'], { KNOW: 1 }],
    ]);
    expect(v.latest_turns.map((t) => [t.actor, t.records.length])).to.deep.equal([[ALICE, 2], [BOB, 2], [CAROL, 1], ['did:sync:user:dave', 1]]);
    expect(v.tasks.open.map((t) => t.id)).to.deep.equal([other.id]);
    expect(v.tasks.counts).to.deep.include({ total: 2, open: 1, approved: 1 });
    expect(v.last_verdict).to.deep.equal({ record: verdict.id, actor: CAROL, verdict: 'accept', summary: 'clear', judges: done.id, corrected_by: null, cancelled_by: null });
  });

  it('applies corrections and cancellations: corrected goal and verdict, reopened thread, markers and counts', () => {
    const log = new TestLog();
    const intend = log.add(ALICE, 'INTEND', { goal: 'old title' });
    const fix = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: intend.id, goal: 'new title' });
    const verdict = log.add(CAROL, 'KNOW', { fulfills: intend.id, verdict: 'reject', summary: 'no' });
    expect(value(log).status).to.equal('closed');
    const vfix = log.add(CAROL, 'KNOW', { topic: 'correction', supersedes: verdict.id, verdict: 'accept', summary: 'yes after all' });
    const cancel = log.add(BOB, 'DO', { cancels: verdict.id });
    const v = value(log);
    expect(v).to.deep.include({ title: 'new title', goal: 'new title', goal_corrected_by: fix.id, status: 'open', closed_by: null, corrections: 2, cancellations: 1 });
    expect(v.last_verdict).to.deep.include({ verdict: 'accept', summary: 'yes after all', corrected_by: vfix.id, cancelled_by: cancel.id });
    const records = v.latest_turns.flatMap((t) => t.records);
    expect(records[0]).to.deep.include({ id: intend.id, text: 'new title', corrected_by: fix.id });
    expect(records.find((r) => r.id === verdict.id)).to.deep.include({ verdict: 'accept', cancelled_by: cancel.id });
  });

  it('bounds the latest turns and titles a goal-less thread by its first record', () => {
    const log = new TestLog();
    for (let i = 0; i < FRAME_RECORDS + 5; i++) log.add(ALICE, 'KNOW', { observation: `step ${i}` });
    const v = value(log);
    expect(v).to.deep.include({ title: 'step 0', goal: null, status: 'none', omitted_records: 5, turn_count: 1 });
    expect(v.latest_turns).to.have.length(1);
    expect(v.latest_turns[0]!.records).to.have.length(FRAME_RECORDS);
  });

  it('applied in random batches equals the one-shot replay', () => {
    checkBatchSplits(frameFold, (log) => ({ key: TH_1, inputs: log.onThread(TH_1) }));
  });
});
