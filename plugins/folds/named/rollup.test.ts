import { expect } from 'chai';
import { replayFold } from '../../../core/folds/fold.js';
import { rollupFold, ROLLUP_RECENT, type RollupValue } from './rollup.js';
import { taskListFold } from './task-list.js';
import { ALICE, BOB, CAROL, checkBatchSplits, scenarioArbitrary, scenarioLog, TestLog, TH_1, TH_2 } from '../../../test/helpers/test-log.js';
import fc from 'fast-check';

const value = (log: TestLog): RollupValue => replayFold(rollupFold, 'rollup', log.inputs);

describe('rollup fold', () => {
  it('counts records, threads, actors, records by act and tasks by state; ranks threads and actors', () => {
    const log = new TestLog();
    const task = log.add(ALICE, 'INTEND', { task: true, goal: 'g' });
    log.add(BOB, 'KNOW', { fulfills: task.id });
    log.add(BOB, 'DO', { tool: 'x' }, { thread: TH_2 });
    log.add(CAROL, 'KNOW', { observation: 'o' }, { thread: TH_2 });
    log.add(CAROL, 'KNOW', { observation: 'p' }, { thread: TH_2 });
    const v = value(log);
    expect(v).to.deep.include({ records: 5, threads: 2, actors: 3, corrections: 0, cancellations: 0 });
    expect(v.records_by_act).to.deep.equal({ INTEND: 1, KNOW: 3, DO: 1 });
    expect(v.tasks).to.deep.include({ total: 1, done: 1, open: 0 });
    expect(v.busiest_threads).to.deep.equal([{ thread: TH_2, records: 3 }, { thread: TH_1, records: 2 }]);
    expect(v.most_active_actors).to.deep.equal([{ actor: BOB, records: 2 }, { actor: CAROL, records: 2 }, { actor: ALICE, records: 1 }]);
    expect(v.recent.map((r) => r.text)).to.deep.equal(['g', `fulfills ${task.id.slice(0, 12)}`, 'tool=x', 'o', 'p']);
  });

  it('shows recent activity after corrections and cancellations, bounded', () => {
    const log = new TestLog();
    const note = log.add(ALICE, 'KNOW', { observation: 'typo' });
    const fix = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: note.id, observation: 'fixed' });
    const step = log.add(BOB, 'DO', { tool: 'x' });
    const cancel = log.add(BOB, 'DO', { cancels: step.id });
    let v = value(log);
    expect(v).to.deep.include({ corrections: 1, cancellations: 1 });
    expect(v.recent[0]).to.deep.include({ text: 'fixed', corrected_by: fix.id, thread: TH_1, actor: ALICE });
    expect(v.recent[2]).to.deep.include({ cancelled_by: cancel.id });
    for (let i = 0; i < ROLLUP_RECENT; i++) log.add(CAROL, 'KNOW', { observation: `n${i}` });
    v = value(log);
    expect(v.recent).to.have.length(ROLLUP_RECENT);
    expect(v.recent[ROLLUP_RECENT - 1]!.text).to.equal(`n${ROLLUP_RECENT - 1}`);
  });

  it('its task counts agree with task_list', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        const log = scenarioLog(steps);
        expect(value(log).tasks).to.deep.equal(replayFold(taskListFold, 'task_list', log.inputs).counts);
      }),
      { numRuns: 60 },
    );
  });

  it('skips system threads and saves checkpoints (version 1)', () => {
    expect(rollupFold.ignoresSystemThreads).to.equal(true);
    expect(rollupFold.checkpoint?.version).to.equal(1);
  });

  it('applied in random batches, with checkpoint round trips, equals the one-shot replay', () => {
    checkBatchSplits(rollupFold, (log) => ({ key: 'rollup', inputs: log.inputs }));
  });
});
