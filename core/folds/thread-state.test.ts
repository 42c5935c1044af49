import { ENGINE_WRITE } from '../engine/ingest.js';
import { expect } from 'chai';
import { replayFold } from './fold.js';
import { participantRows, threadStateFold, type ThreadStateValue } from './thread-state.js';
import { ALICE, BOB, CAROL, checkBatchSplits, TestLog, TH_1 } from '../../test/helpers/test-log.js';
import { rec, startTestEngine, TH_A, type TestEngine } from '../../test/helpers/test-engine.js';

describe('thread_state fold', () => {
  let t: TestEngine;
  beforeEach(async () => (t = await startTestEngine()));
  afterEach(async () => t.cleanup());

  const ingest = (input: Parameters<typeof rec>[0]) => t.engine.ingestor.ingest(ENGINE_WRITE, rec(input));
  const state = async () => (await t.engine.folds.thread<ThreadStateValue>('thread_state', TH_A)).value;
  const fullReplay = async () => {
    const page = await t.engine.store.listByThread(TH_A, { limit: 1000 });
    return replayFold(threadStateFold, TH_A, page.items);
  };

  it('follows the arc: INTEND opens, a KNOW fulfilling it closes, a new INTEND reopens', async () => {
    expect((await state()).status).to.equal('none');
    const intend = await ingest({ clock: 0, act: 'INTEND', body: { goal: 'write docs', task: true } });
    expect(await state()).to.include({ status: 'open', opened_by: 'did:sync:user:alice', first_goal: 'write docs' });
    await ingest({ clock: 0, actor: 'did:sync:agent:bot', act: 'DO', body: { tool: 'editor' } });
    await ingest({ clock: 1, actor: 'did:sync:agent:bot', act: 'KNOW', body: { fulfills: 'f'.repeat(64) } });
    expect((await state()).status, 'fulfilling an unknown record does not close').to.equal('open');
    const done = await ingest({ clock: 2, actor: 'did:sync:agent:bot', act: 'KNOW', body: { fulfills: intend.stored.record.id } });
    const closed = await state();
    expect(closed.status).to.equal('closed');
    expect(closed.closed_by).to.deep.equal({ record: done.stored.record.id, actor: 'did:sync:agent:bot', reason: 'fulfilled' });
    await ingest({ clock: 1, act: 'INTEND', body: { goal: 'again' } });
    expect(await state()).to.include({ status: 'open', first_goal: 'write docs' });
  });

  it('closes on a DO cancelling an INTEND and on a reject verdict', async () => {
    const intend = await ingest({ clock: 0, act: 'INTEND', body: { goal: 'g' } });
    await ingest({ clock: 1, act: 'DO', body: { cancels: intend.stored.record.id, reason: 'dup' } });
    expect((await state()).closed_by?.reason).to.equal('cancelled');
    await ingest({ clock: 2, act: 'INTEND', body: { goal: 'h' } });
    await ingest({ clock: 0, actor: 'did:sync:user:rev', act: 'KNOW', body: { verdict: 'reject' } });
    expect((await state()).closed_by?.reason).to.equal('rejected');
  });

  it('tracks per-actor highest clocks, participants and counts, with gaps allowed', async () => {
    for (const clock of [0, 1, 5, 7]) await ingest({ clock });
    await ingest({ clock: 0, actor: 'did:sync:user:bob' });
    const v = await state();
    expect(v.actor_clocks).to.deep.equal({ 'did:sync:user:alice': 7, 'did:sync:user:bob': 0 });
    expect(v.participants).to.deep.equal(['did:sync:user:alice', 'did:sync:user:bob']);
    expect(v.record_count).to.equal(5);
    expect(v.last_clock).to.equal(7);
  });

  it('applied incrementally equals the full replay, at every step', async () => {
    const actors = ['did:sync:user:a', 'did:sync:agent:b', 'did:sync:system:c'];
    const clocks = new Map<string, number>();
    let intendId: string | null = null;
    for (let i = 0; i < 60; i++) {
      const actor = actors[i % 3]!;
      const clock = (clocks.get(actor) ?? -1) + 1 + (i % 4 === 0 ? 2 : 0);
      clocks.set(actor, clock);
      const act = i % 11 === 0 ? 'INTEND' : i % 13 === 0 ? 'DO' : 'KNOW';
      const body: Record<string, unknown> = act === 'INTEND' ? { goal: `g${i}` } : act === 'DO' && intendId ? { cancels: intendId } : i % 17 === 0 && intendId ? { fulfills: intendId } : { n: i };
      const { stored } = await ingest({ clock, actor, act, body });
      if (act === 'INTEND') intendId = stored.record.id;
      if (i % 5 === 0) expect(await state()).to.deep.equal(await fullReplay());
    }
    expect(await state()).to.deep.equal(await fullReplay());
    // A fresh engine (empty cache) computes the same value from the log.
    await t.restart();
    expect(await state()).to.deep.equal(await fullReplay());
  });

  it('answers with the fold envelope and a watermark', async () => {
    const { stored } = await ingest({ clock: 0 });
    const answer = await t.engine.folds.thread('thread_state', TH_A);
    expect(answer.fold_name).to.equal('thread_state');
    expect(answer.watermark).to.equal(stored.sequence);
    expect(answer.cache_key).to.be.a('string');
  });

  describe('corrections, cancellations and participants (pure)', () => {
    const fold = (log: TestLog) => {
      let state = threadStateFold.initial(TH_1);
      for (const input of log.onThread(TH_1)) state = threadStateFold.apply(state, input);
      return state;
    };

    it('shows the opener\'s corrected goal (chains too), never anyone else\'s; a correction is no act of the arc', () => {
      const log = new TestLog();
      const intend = log.add(ALICE, 'INTEND', { goal: 'old goal' });
      log.add(BOB, 'KNOW', { topic: 'correction', supersedes: intend.id, goal: 'hijacked' });
      expect(fold(log).value).to.include({ first_goal: 'old goal', goal_corrected_by: null });
      const fix = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: intend.id, goal: 'new goal', fulfills: intend.id, verdict: 'reject' });
      expect(fold(log).value).to.include({ first_goal: 'new goal', goal_corrected_by: fix.id, status: 'open' });
      const fix2 = log.add(ALICE, 'KNOW', { topic: 'correction', supersedes: fix.id, goal: 'newest goal' });
      expect(fold(log).value).to.include({ first_goal: 'newest goal', goal_corrected_by: fix2.id });
      expect(participantRows(fold(log)).find((p) => p.actor === ALICE)!.roles, 'a correction carrying a verdict is no review').to.deep.equal(['opener']);
    });

    it('cancelling the record that closed the thread reopens it, whichever way it was closed', () => {
      const log = new TestLog();
      const intend = log.add(ALICE, 'INTEND', { goal: 'g' });
      const done = log.add(BOB, 'KNOW', { fulfills: intend.id });
      expect(fold(log).value.status).to.equal('closed');
      log.add(CAROL, 'DO', { cancels: done.id });
      expect(fold(log).value).to.include({ status: 'open', closed_by: null });
      const cancel = log.add(ALICE, 'DO', { cancels: intend.id });
      expect(fold(log).value.closed_by).to.deep.equal({ record: cancel.id, actor: ALICE, reason: 'cancelled' });
      log.add(ALICE, 'DO', { cancels: cancel.id });
      expect(fold(log).value.status).to.equal('open');
      const reject = log.add(CAROL, 'KNOW', { verdict: 'reject' });
      expect(fold(log).value.closed_by?.reason).to.equal('rejected');
      log.add(CAROL, 'DO', { cancels: reject.id });
      expect(fold(log).value.status).to.equal('open');
      log.add(CAROL, 'DO', { cancels: 'f'.repeat(64) });
      expect(fold(log).value.status, 'cancelling something else changes nothing').to.equal('open');
    });

    it('gives participants record counts by act and roles: opener, worker, reviewer, adapter, else observer', () => {
      const log = new TestLog();
      const intend = log.add(ALICE, 'INTEND', { goal: 'g' });
      log.add(BOB, 'DO', { tool: 'x', dispatch_handled: true });
      log.add(BOB, 'KNOW', { fulfills: intend.id });
      log.add(CAROL, 'KNOW', { verdict: 'accept', fulfills: intend.id });
      log.add('did:sync:user:dave', 'KNOW', { observation: 'o' });
      log.add('did:sync:user:dave', 'LEARN', { insight: 'i' });
      const rows = participantRows(fold(log)).map((p) => ({ actor: p.actor, roles: p.roles, acts: p.acts, record_count: p.record_count }));
      expect(rows).to.deep.equal([
        { actor: ALICE, roles: ['opener'], acts: { INTEND: 1 }, record_count: 1 },
        { actor: BOB, roles: ['adapter', 'worker'], acts: { DO: 1, KNOW: 1 }, record_count: 2 },
        { actor: CAROL, roles: ['reviewer'], acts: { KNOW: 1 }, record_count: 1 },
        { actor: 'did:sync:user:dave', roles: ['observer'], acts: { KNOW: 1, LEARN: 1 }, record_count: 2 },
      ]);
    });

    it('applied in random batches equals the one-shot replay', () => {
      checkBatchSplits(threadStateFold, (log) => ({ key: TH_1, inputs: log.onThread(TH_1) }));
    });
  });
});
