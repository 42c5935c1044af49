import { expect } from 'chai';
import { replayFold } from '../../../core/folds/fold.js';
import { applyToTaskBook, newTaskBook } from './task-book.js';
import { taskListFold, type TaskListValue } from './task-list.js';
import { ALICE, BOB, CAROL, checkBatchSplits, TestLog, TH_2 } from '../../../test/helpers/test-log.js';

const value = (log: TestLog): TaskListValue => replayFold(taskListFold, 'task_list', log.inputs);
const task = (log: TestLog, id: string) => value(log).tasks.find((t) => t.id === id)!;

describe('task_list fold', () => {
  it('lists task INTENDs only: task: true, or assigned_to / alias, never task: false', () => {
    const log = new TestLog();
    const a = log.add(ALICE, 'INTEND', { task: true, goal: 'a' });
    const b = log.add(ALICE, 'INTEND', { goal: 'b', assigned_to: BOB });
    const c = log.add(ALICE, 'INTEND', { goal: 'c', alias: 'cee' }, { thread: TH_2 });
    log.add(ALICE, 'INTEND', { goal: 'plain goal' });
    log.add(ALICE, 'INTEND', { task: false, alias: 'not-a-task' });
    log.add(ALICE, 'DO', { task: true });
    const v = value(log);
    expect(v.tasks.map((t) => t.id)).to.deep.equal([a.id, b.id, c.id]);
    expect(v.tasks[1]).to.deep.include({ goal: 'b', assigned_to: BOB, opened_by: ALICE, state: 'open', thread: a.thread });
    expect(v.tasks[2]).to.deep.include({ alias: 'cee', thread: TH_2, sequence: 3 });
    expect(v.counts).to.deep.include({ total: 3, open: 3 });
  });

  it('keeps the task fields: goal, alias, assigned_to, domain, priority, labels, namespace (clipped)', () => {
    const log = new TestLog();
    const t = log.add(ALICE, 'INTEND', { task: true, goal: 'x'.repeat(900), alias: 'al', assigned_to: BOB, domain: 'code', priority: 'high', labels: ['a', 'b', 3], namespace: 'acme/web' });
    const item = task(log, t.id);
    expect(item.goal).to.have.length(500);
    expect(item).to.deep.include({ alias: 'al', assigned_to: BOB, domain: 'code', priority: 'high', labels: ['a', 'b'], namespace: 'acme/web', corrected_by: null });
  });

  it('done by a fulfilling KNOW, approved or rejected by another actor\'s verdict; self-judgment changes nothing', () => {
    const log = new TestLog();
    const t = log.add(ALICE, 'INTEND', { task: true, goal: 'g', assigned_to: BOB });
    const done = log.add(BOB, 'KNOW', { fulfills: t.id, summary: 'did it' });
    expect(task(log, t.id)).to.deep.include({ state: 'done', done_by: { record: done.id, actor: BOB } });
    log.add(BOB, 'KNOW', { fulfills: done.id, verdict: 'accept' }, { judged_by: done.id });
    expect(task(log, t.id).state, 'a worker judging its own work').to.equal('done');
    const reject = log.add(ALICE, 'KNOW', { fulfills: done.id, verdict: 'reject' }, { judged_by: done.id });
    expect(task(log, t.id)).to.deep.include({ state: 'rejected', verdict: { record: reject.id, actor: ALICE, verdict: 'reject' } });
    // Rework: a new completion clears the verdict; the old completion can no longer be judged.
    const redo = log.add(BOB, 'KNOW', { fulfills: t.id, summary: 'again' });
    expect(task(log, t.id)).to.deep.include({ state: 'done', verdict: null });
    log.add(CAROL, 'KNOW', { fulfills: done.id, verdict: 'accept' });
    expect(task(log, t.id).state).to.equal('done');
    log.add(CAROL, 'KNOW', { verdict: 'accept' }, { judged_by: redo.id });
    expect(task(log, t.id).state).to.equal('approved');
    log.add(CAROL, 'KNOW', { fulfills: t.id, verdict: 'needs-more' });
    expect(task(log, t.id)).to.deep.include({ state: 'done' });
    expect(task(log, t.id).verdict?.verdict).to.equal('needs-more');
    expect(value(log).counts).to.deep.include({ total: 1, done: 1, open: 0, approved: 0, rejected: 0 });
  });

  it('reads verdict words as trust does: success words approve, failure words reject, case and spaces ignored', () => {
    const log = new TestLog();
    const words: Array<[string, string]> = [[' Passed ', 'approved'], ['APPROVE', 'approved'], ['timeout', 'rejected'], ['failed', 'rejected'], ['abstain', 'done']];
    const tasks = words.map(([word]) => {
      const t = log.add(ALICE, 'INTEND', { task: true, goal: word });
      const done = log.add(BOB, 'KNOW', { fulfills: t.id });
      log.add(CAROL, 'KNOW', { fulfills: done.id, verdict: word });
      return t;
    });
    expect(tasks.map((t) => task(log, t.id).state)).to.deep.equal(words.map(([, state]) => state));
  });

  it('cancelled by a DO cancels; cancelling that cancellation, the completion or the verdict withdraws it', () => {
    const log = new TestLog();
    const t = log.add(ALICE, 'INTEND', { task: true, goal: 'g' });
    const cancel = log.add(CAROL, 'DO', { cancels: t.id, reason: 'dup' });
    expect(task(log, t.id)).to.deep.include({ state: 'cancelled', cancelled_by: { record: cancel.id, actor: CAROL } });
    log.add(ALICE, 'DO', { cancels: cancel.id });
    expect(task(log, t.id)).to.deep.include({ state: 'open', cancelled_by: null });
    const done = log.add(BOB, 'KNOW', { fulfills: t.id });
    const verdict = log.add(CAROL, 'KNOW', { fulfills: done.id, verdict: 'accept' });
    expect(task(log, t.id).state).to.equal('approved');
    log.add(CAROL, 'DO', { cancels: verdict.id });
    expect(task(log, t.id).state).to.equal('done');
    log.add(BOB, 'DO', { cancels: done.id });
    expect(task(log, t.id)).to.deep.include({ state: 'open', done_by: null });
    expect(value(log).counts).to.deep.include({ open: 1, cancelled: 0, done: 0, approved: 0 });
  });

  it('applies the opener\'s corrections to the fields (chains too), ignores anyone else\'s; corrected is a flag', () => {
    const log = new TestLog();
    const t = log.add(ALICE, 'INTEND', { task: true, goal: 'old goal', labels: ['x'], namespace: 'acme' });
    log.add(BOB, 'KNOW', { topic: 'correction', supersedes: t.id, goal: 'hijacked' });
    expect(task(log, t.id)).to.deep.include({ goal: 'old goal', corrected_by: null });
    const fix = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: t.id, reason: 'typo', goal: 'new goal', labels: ['y'], namespace: 'elsewhere' });
    expect(task(log, t.id)).to.deep.include({ goal: 'new goal', labels: ['y'], namespace: 'acme', corrected_by: fix.id, state: 'open' });
    const fix2 = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: fix.id, goal: 'newer goal' });
    expect(task(log, t.id)).to.deep.include({ goal: 'newer goal', labels: ['y'], corrected_by: fix2.id });
    // A correction cannot be cancelled; it is not a completion either.
    log.add(ALICE, 'DO', { cancels: fix2.id });
    expect(task(log, t.id)).to.deep.include({ goal: 'newer goal', state: 'open' });
    expect(value(log).counts).to.deep.include({ corrected: 1, open: 1 });
  });

  it('a correction of the verdict in force by its author changes the state', () => {
    const log = new TestLog();
    const t = log.add(ALICE, 'INTEND', { task: true });
    const done = log.add(BOB, 'KNOW', { fulfills: t.id });
    const verdict = log.add(CAROL, 'KNOW', { fulfills: done.id, verdict: 'accept' });
    log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: verdict.id, verdict: 'reject' });
    expect(task(log, t.id).state, 'only the verdict\'s author may correct it').to.equal('approved');
    log.add(CAROL, 'KNOW', { topic: 'correction', supersedes: verdict.id, verdict: 'reject', reason: 'missed a bug' });
    expect(task(log, t.id)).to.deep.include({ state: 'rejected', corrected_by: null });
  });

  it('drops the oldest closed tasks beyond the bound; counts keep them', () => {
    const log = new TestLog();
    const tasks = [0, 1, 2, 3].map((i) => log.add(ALICE, 'INTEND', { task: true, goal: `t${i}` }));
    for (const t of tasks.slice(0, 3)) log.add(BOB, 'KNOW', { fulfills: t.id });
    const book = newTaskBook({ closedKept: 2 });
    for (const input of log.inputs) applyToTaskBook(book, input.sequence, input.record);
    expect([...book.tasks.keys()]).to.deep.equal([tasks[1]!.id, tasks[2]!.id, tasks[3]!.id]);
    expect(book.evicted).to.equal(1);
    expect(book.counts).to.deep.include({ total: 4, done: 3, open: 1 });
    expect(book.links.size, 'the dropped task\'s follow-ups go with it').to.equal(2);
  });

  it('skips reserved and system threads and saves checkpoints (version 1)', () => {
    expect(taskListFold.ignoresSystemThreads).to.equal(true);
    expect(taskListFold.checkpoint?.version).to.equal(1);
  });

  it('applied in random batches, with checkpoint round trips, equals the one-shot replay', () => {
    checkBatchSplits(taskListFold, (log) => ({ key: 'task_list', inputs: log.inputs }));
  });
});
