/**
 * The trust fold inside the real engine, on both drivers: records through
 * the ingest pipeline, system threads skipped, and the fold after a restart
 * (resumed from its checkpoint, or rebuilt from the log) equal to the one
 * built incrementally.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ENGINE_WRITE } from '../../core/engine/ingest.js';
import { LoomEngine } from '../../core/engine/loom-engine.js';
import type { FoldReplayReport } from '../../core/engine/fold-engine.js';
import { TH_FLEET_CONTROL } from '../../core/records/reserved-threads.js';
import { LevelRecordStore } from '../../storage/level/index.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { createTrustFold, type TrustFoldValue } from './trust-fold.js';
import { DAY_MS, did } from '../../test/helpers/trust-log.js';

const TASK_A = 'th_' + '1'.repeat(64);
const TASK_B = 'th_' + '2'.repeat(64);

for (const driver of ['sqlite', 'level'] as const) {
  describe(`trust fold in the engine (${driver})`, function () {
    this.timeout(30_000);
    let dir: string;
    let engine: LoomEngine;
    let now = Date.now();
    const reports: FoldReplayReport[] = [];
    const clocks = new Map<string, number>();

    const open = async (checkpoints: boolean) => {
      const store = driver === 'sqlite' ? new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' }) : new LevelRecordStore({ path: join(dir, 'level'), durability: 'normal' });
      engine = new LoomEngine({ store, foldCheckpointDir: checkpoints ? join(dir, 'folds') : null, onFoldReplayed: (r) => reports.push(r) });
      engine.folds.register(createTrustFold({ now: () => now }));
      await engine.start();
    };
    const write = async (thread: string, actor: string, act: 'INTEND' | 'KNOW' | 'DO', body: Record<string, unknown>, judged_by: string | null = null) => {
      const slot = `${actor} ${thread}`;
      const clock = (clocks.get(slot) ?? -1) + 1;
      clocks.set(slot, clock);
      const result = await engine.ingestor.ingest(ENGINE_WRITE, { parents: [], thread, actor, act, body, clock, data_type: 'SCALAR', judged_by });
      return result.stored.record.id;
    };
    const value = () => engine.folds.global<TrustFoldValue>('trust').value;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'loom-trust-'));
      await open(true);
      for (const [thread, worker] of [
        [TASK_A, did('ada')],
        [TASK_B, did('bob')],
      ] as const) {
        const task = await write(thread, did('lead'), 'INTEND', { task: true, goal: 'g', domain: 'code', assigned_to: worker });
        const claim = await write(thread, worker, 'KNOW', { fulfills: task, summary: 'done' });
        await write(thread, did('reviewer'), 'KNOW', { fulfills: claim, verdict: 'accept' }, claim);
        const wrong = await write(thread, did('reviewer'), 'KNOW', { fulfills: claim, verdict: 'reject' }, claim);
        await write(thread, did('reviewer'), 'DO', { cancels: wrong, reason: 'wrong task' });
      }
      // The same shapes on a reserved thread are no evidence: folds over work skip system threads.
      const task = await write(TH_FLEET_CONTROL, did('lead'), 'INTEND', { task: true, goal: 'g', assigned_to: did('eve') });
      const claim = await write(TH_FLEET_CONTROL, did('eve'), 'KNOW', { fulfills: task });
      await write(TH_FLEET_CONTROL, did('reviewer'), 'KNOW', { fulfills: claim, verdict: 'accept' }, claim);
    });
    after(async () => {
      await engine.stop();
      await rm(dir, { recursive: true, force: true });
    });

    it('scores the records that came through ingest, applied inline, and skips system threads', () => {
      const v = value();
      expect(v.rows.map((r) => [r.actor, r.domain, r.judged_by, r.successes, r.failures])).to.have.deep.members([
        [did('ada'), 'code', did('reviewer'), 1, 0],
        [did('bob'), 'code', did('reviewer'), 1, 0],
      ]);
      expect(v.stats).to.deep.include({ verdicts: 4, cancellations: 2, in_force: 2, work_items: 4 });
    });

    it('after a restart resumes from its checkpoint to the same value, and decays with the clock', async () => {
      const before = value();
      await engine.stop();
      reports.length = 0;
      await open(true);
      expect(reports.find((r) => r.fold === 'trust')).to.deep.include({ from: 'checkpoint', discarded: null });
      expect(value()).to.deep.equal(before);
      now += 90 * DAY_MS;
      const later = value();
      for (const row of later.rows) expect(row.weighted_total).to.be.closeTo(0.5, 1e-3);
      now -= 90 * DAY_MS;
    });

    it('rebuilt from the log (no checkpoint) equals the incrementally built fold', async () => {
      const before = value();
      await engine.stop();
      reports.length = 0;
      await open(false);
      expect(reports.find((r) => r.fold === 'trust')).to.deep.include({ from: 'rebuilt' });
      expect(value()).to.deep.equal(before);
    });
  });
}
