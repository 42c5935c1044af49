import { expect } from 'chai';
import { replayFold } from '../../../core/folds/fold.js';
import { ALICE, BOB, CAROL, checkBatchSplits, TestLog, TH_1, TH_2 } from '../../../test/helpers/test-log.js';
import { turnFold, TURN_WINDOW, type TurnValue } from './turn.js';

const value = (log: TestLog, thread = TH_1): TurnValue => replayFold(turnFold, thread, log.onThread(thread));

describe('turn fold', () => {
  it('groups consecutive records by one actor into numbered turns', () => {
    const log = new TestLog();
    log.add(ALICE, 'INTEND', { goal: 'plan the release' });
    log.add(ALICE, 'KNOW', { observation: 'two blockers' });
    log.add(BOB, 'DO', { tool: 'ci', text: 'ran the suite' });
    log.add(ALICE, 'KNOW', { summary: 'looks good' });
    log.add(CAROL, 'KNOW', { text: 'elsewhere' }, { thread: TH_2 });
    const v = value(log);
    expect(v).to.deep.include({ thread: TH_1, record_count: 4, turn_count: 3, omitted_records: 0 });
    expect(v.turns.map((t) => [t.turn, t.actor, t.records.map((r) => r.text)])).to.deep.equal([
      [0, ALICE, ['plan the release', 'two blockers']],
      [1, BOB, ['ran the suite']],
      [2, ALICE, ['looks good']],
    ]);
    expect(v.turns[1]!.records[0]).to.deep.include({ act: 'DO', clock: 0, sequence: 3, body: { tool: 'ci', text: 'ran the suite' }, corrected_by: null, cancelled_by: null });
    expect(value(new TestLog())).to.deep.include({ record_count: 0, turn_count: 0, turns: [] });
  });

  it('shows the corrected content (by the author only), the correction itself, and cancellations in force', () => {
    const log = new TestLog();
    const intend = log.add(ALICE, 'INTEND', { goal: 'ship v1', priority: 'low' });
    log.add(BOB, 'KNOW', { topic: 'correction', supersedes: intend.id, goal: 'ship v0' });
    const fix = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: intend.id, reason: 'wrong version', goal: 'ship v2' });
    const step = log.add(BOB, 'DO', { tool: 'deploy' });
    const cancel = log.add(ALICE, 'DO', { cancels: step.id, reason: 'not yet' });
    log.add(ALICE, 'DO', { cancels: fix.id });
    const records = value(log).turns.flatMap((t) => t.records);
    expect(records[0]).to.deep.include({ id: intend.id, text: 'ship v2', body: { goal: 'ship v2', priority: 'low' }, corrected_by: fix.id });
    expect(records[1]).to.deep.include({ text: 'correction of ' + intend.id.slice(0, 12), corrected_by: null });
    expect(records[2]).to.deep.include({ id: fix.id, supersedes: intend.id, text: `correction of ${intend.id.slice(0, 12)}: wrong version`, cancelled_by: null });
    expect(records[3]).to.deep.include({ id: step.id, cancelled_by: cancel.id });
    expect(records[4]).to.deep.include({ cancels: step.id, text: `cancels ${step.id.slice(0, 12)}: not yet` });
    // Withdrawing the cancellation lifts it.
    log.add(BOB, 'DO', { cancels: cancel.id });
    expect(value(log).turns.flatMap((t) => t.records)[3]!.cancelled_by).to.equal(null);
  });

  it('a correction of a correction corrects the original content', () => {
    const log = new TestLog();
    const intend = log.add(ALICE, 'INTEND', { goal: 'a', note: 'keep' });
    const first = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: intend.id, goal: 'b' });
    const second = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: first.id, goal: 'c' });
    const head = value(log).turns[0]!.records[0]!;
    expect(head).to.deep.include({ text: 'c', body: { goal: 'c', note: 'keep' }, corrected_by: second.id });
  });

  it(`keeps the latest ${TURN_WINDOW} records, with the whole thread's turn numbers`, () => {
    const log = new TestLog();
    for (let i = 0; i < TURN_WINDOW + 7; i++) log.add(i % 2 === 0 ? ALICE : BOB, 'KNOW', { observation: `n${i}` });
    const v = value(log);
    expect(v).to.deep.include({ record_count: TURN_WINDOW + 7, omitted_records: 7, turn_count: TURN_WINDOW + 7 });
    expect(v.turns[0]).to.deep.include({ turn: 7 });
    expect(v.turns[0]!.records[0]!.text).to.equal('n7');
  });

  it('applied in random batches equals the one-shot replay', () => {
    checkBatchSplits(turnFold, (log) => ({ key: TH_1, inputs: log.onThread(TH_1) }));
  });
});
