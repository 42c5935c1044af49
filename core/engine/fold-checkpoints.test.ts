import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fold } from '../folds/fold.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { LevelRecordStore } from '../../storage/level/index.js';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { FoldReplayReport } from './fold-engine.js';
import { ENGINE_WRITE } from './ingest.js';
import { readCheckpointFile, writeCheckpointFile } from './checkpoint-file.js';
import { LoomEngine } from './loom-engine.js';
import { FoldLoadingError } from './fold-loading-error.js';
import { SYSTEM } from '../access/caller.js';
import { rec, TH_A, TH_B } from '../../test/helpers/test-engine.js';

/** Counts records per actor and remembers how many records it was ever applied to (to see what a start replayed). */
function countingFold(version = 1): Fold<{ perActor: Record<string, number>; applied: number }, Record<string, number>> & { applications: number } {
  const fold = {
    applications: 0,
    name: 'per_actor',
    scope: 'global' as const,
    description: 'records per actor',
    ignoresSystemThreads: true,
    initial: () => ({ perActor: {}, applied: 0 }),
    apply(state: { perActor: Record<string, number>; applied: number }, { record }: { record: { actor: string } }) {
      fold.applications++;
      state.perActor[record.actor] = (state.perActor[record.actor] ?? 0) + 1;
      state.applied++;
      return state;
    },
    value: (state: { perActor: Record<string, number> }) => ({ ...state.perActor }),
    checkpoint: { version, save: (state: unknown) => state, load: (saved: unknown) => saved as { perActor: Record<string, number>; applied: number } },
  };
  return fold;
}

for (const driver of ['sqlite', 'level'] as const) {
  describe(`fold checkpoints (${driver})`, () => {
    let dir: string;
    const open = (): RecordStore => (driver === 'sqlite' ? new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' }) : new LevelRecordStore({ path: join(dir, 'level'), durability: 'normal' }));
    const start = async (fold = countingFold(), reports: FoldReplayReport[] = [], lazyCheckpointBytes: number | null = null) => {
      const engine = new LoomEngine({ store: open(), foldCheckpointDir: join(dir, 'folds'), onFoldReplayed: (r) => reports.push(r), lazyCheckpointBytes });
      engine.folds.register(fold);
      await engine.start();
      return engine;
    };
    const write = async (engine: LoomEngine, from: number, count: number) => {
      for (let clock = from; clock < from + count; clock++) await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock, actor: clock % 3 ? 'did:sync:user:bob' : 'did:sync:user:alice', thread: clock % 2 ? TH_A : TH_B }));
    };

    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), `loom-checkpoint-${driver}-`));
    });
    afterEach(async () => rm(dir, { recursive: true, force: true }));

    it('resumes from the checkpoint and replays only the tail; the value equals a full rebuild', async () => {
      let engine = await start();
      await write(engine, 0, 30);
      await engine.stop(); // saves
      const saved = (await readCheckpointFile(join(dir, 'folds', 'per_actor.ckpt'))).header;
      expect(saved).to.include({ fold: 'per_actor', version: 1, watermark: 30 });

      // Records written while no checkpoint covers them (another process, a crash): replayed as the tail.
      const plain = new LoomEngine({ store: open() });
      await plain.start();
      await write(plain, 30, 5);
      await plain.stop();

      const fold = countingFold();
      const reports: FoldReplayReport[] = [];
      engine = await start(fold, reports);
      expect(fold.applications).to.equal(5);
      expect(reports.find((r) => r.fold === 'per_actor')).to.deep.include({ from: 'checkpoint', resumedAt: 30, watermark: 35, discarded: null });
      const resumed = engine.folds.global('per_actor').value;
      await engine.stop();

      await rm(join(dir, 'folds'), { recursive: true });
      const rebuiltFold = countingFold();
      engine = await start(rebuiltFold);
      expect(rebuiltFold.applications).to.equal(35);
      expect(engine.folds.global('per_actor').value).to.deep.equal(resumed);
      await engine.stop();
    });

    it('a fold that names kinds keeps a checkpoint at the head of the log even when no record reached it, so a start does not scan the log again for it', async () => {
      const kindFold = () => ({ ...countingFold(), name: 'rare_kind', kinds: ['rare.kind.v1'] });
      let engine = await start(kindFold());
      await write(engine, 0, 12);
      await engine.stop();
      expect((await readCheckpointFile(join(dir, 'folds', 'rare_kind.ckpt'))).header).to.include({ fold: 'rare_kind', watermark: 12 });

      const reports: FoldReplayReport[] = [];
      engine = await start(kindFold(), reports);
      expect(reports.find((r) => r.fold === 'rare_kind')).to.deep.include({ from: 'checkpoint', resumedAt: 12, watermark: 12 });
      await engine.stop();
    });

    it('a large checkpoint loads after start returns: reads wait for that fold, a write waits for every fold, and the value equals a full rebuild', async () => {
      let engine = await start();
      await write(engine, 0, 30);
      await engine.stop();

      const fold = countingFold();
      const reports: FoldReplayReport[] = [];
      engine = await start(fold, reports, 0);
      // Still loading: a synchronous read says so (the route layer waits on `loaded`); the reader waits by itself.
      expect(engine.folds.loadingFolds()).to.deep.equal(['per_actor']);
      let loading: unknown;
      try {
        engine.folds.global('per_actor');
      } catch (error) {
        loading = error;
      }
      expect(loading).to.be.instanceOf(FoldLoadingError);
      expect(loading).to.include({ code: 'SERVICE_UNAVAILABLE', fold: 'per_actor' });
      const [read] = await Promise.all([engine.reader.globalFold(SYSTEM, 'per_actor'), write(engine, 30, 3)]);
      expect(read.watermark).to.be.at.least(30);
      // The write waited for the load, then applied once: 3 new records, each applied exactly once.
      expect(engine.folds.loadingFolds()).to.deep.equal([]);
      expect(fold.applications).to.equal(3);
      expect(reports.find((r) => r.fold === 'per_actor')).to.deep.include({ from: 'checkpoint', resumedAt: 30 });
      const lazyValue = engine.folds.global('per_actor');
      expect(lazyValue.watermark).to.equal(33);
      await engine.stop();

      await rm(join(dir, 'folds'), { recursive: true });
      engine = await start(countingFold());
      expect(engine.folds.global('per_actor').value).to.deep.equal(lazyValue.value);
      await engine.stop();
    });

    it('a stop while a checkpoint loads leaves it as it was, and whoever waits hears SERVICE_UNAVAILABLE', async () => {
      let engine = await start();
      await write(engine, 0, 10);
      await engine.stop();
      const before = (await readCheckpointFile(join(dir, 'folds', 'per_actor.ckpt'))).header;

      engine = await start(countingFold(), [], 0);
      const waiting = engine.folds.ready('per_actor');
      engine.folds.abortLoading();
      let refused: unknown;
      await waiting.catch((error: unknown) => (refused = error));
      expect(refused).to.include({ code: 'SERVICE_UNAVAILABLE' });
      await engine.stop();
      expect((await readCheckpointFile(join(dir, 'folds', 'per_actor.ckpt'))).header).to.deep.equal(before);
      // A read after that is refused outright, not told to wait for a load that will not come.
      let after: unknown;
      try {
        engine.folds.global('per_actor');
      } catch (error) {
        after = error;
      }
      expect(after).to.include({ code: 'SERVICE_UNAVAILABLE' }).and.not.be.instanceOf(FoldLoadingError);
    });

    it('rebuilds when the fold code changed version, or the checkpoint is from another log, or unreadable', async () => {
      let engine = await start();
      await write(engine, 0, 10);
      await engine.stop();

      let reports: FoldReplayReport[] = [];
      let fold = countingFold(2);
      engine = await start(fold, reports);
      expect(fold.applications).to.equal(10);
      expect(reports[reports.length - 1]).to.include({ from: 'rebuilt' });
      expect(reports[reports.length - 1]!.discarded).to.match(/version 1, code is at 2/);
      await engine.stop();

      const file = join(dir, 'folds', 'per_actor.ckpt');
      const saved = await readCheckpointFile(file);
      await writeCheckpointFile(file, { ...saved.header, version: 1, anchor: 'f'.repeat(64) }, saved.state).durable;
      reports = [];
      fold = countingFold(1);
      engine = await start(fold, reports);
      expect(fold.applications).to.equal(10);
      expect(reports[reports.length - 1]!.discarded).to.match(/another log/);
      await engine.stop();

      await writeFile(file, '{"fold": "per_actor", "vers');
      reports = [];
      fold = countingFold(1);
      engine = await start(fold, reports);
      expect(fold.applications).to.equal(10);
      expect(reports[reports.length - 1]!.discarded).to.match(/unreadable/);
      expect(engine.folds.global<Record<string, number>>('per_actor').value).to.deep.equal({ 'did:sync:user:alice': 4, 'did:sync:user:bob': 6 });
      await engine.stop();
    });

    it('resumes from a checkpoint of the earlier format (<fold>.json), and replaces it with the line format at the next save', async () => {
      let engine = await start();
      await write(engine, 0, 12);
      await engine.stop();
      const current = join(dir, 'folds', 'per_actor.ckpt');
      const saved = await readCheckpointFile(current);
      await writeFile(join(dir, 'folds', 'per_actor.json'), JSON.stringify({ ...saved.header, state: saved.state }));
      await rm(current);
      const fold = countingFold();
      const reports: FoldReplayReport[] = [];
      engine = await start(fold, reports);
      expect(reports[reports.length - 1]).to.include({ from: 'checkpoint', resumedAt: 12 });
      expect(fold.applications).to.equal(0);
      await write(engine, 12, 2);
      await engine.stop();
      expect((await readCheckpointFile(current)).header.watermark).to.equal(14);
      expect(await readFile(join(dir, 'folds', 'per_actor.json')).catch((error) => error.code)).to.equal('ENOENT');
    });

    it('a checkpoint covering more than the log (a restored older backup) is discarded', async () => {
      let engine = await start();
      await write(engine, 0, 4);
      await engine.stop();
      const file = join(dir, 'folds', 'per_actor.ckpt');
      const saved = await readCheckpointFile(file);
      await writeCheckpointFile(file, { ...saved.header, watermark: 400 }, saved.state).durable;
      const reports: FoldReplayReport[] = [];
      engine = await start(countingFold(), reports);
      expect(reports[reports.length - 1]!.discarded).to.match(/log ends at 4/);
      await engine.stop();
    });
  });
}
