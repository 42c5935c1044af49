import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Fold } from '../folds/fold.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { rec, TH_A, TH_B } from '../../test/helpers/test-engine.js';
import { ENGINE_WRITE } from './ingest.js';
import { LoomEngine } from './loom-engine.js';
import { ThreadFoldCache } from './thread-fold-cache.js';

/** Counts a thread's records and how many times `apply` ran in all, to see what a read replayed. */
let applied = 0;
const count: Fold<number, number> = {
  name: 'count',
  scope: 'thread',
  description: 'records on the thread',
  initial: () => 0,
  apply: (state) => {
    applied += 1;
    return state + 1;
  },
  value: (state) => state,
};

describe('ThreadFoldCache', () => {
  let dir: string;
  let engine: LoomEngine;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-thread-cache-'));
    engine = new LoomEngine({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' }) });
    await engine.start();
    for (let clock = 0; clock < 6; clock++) await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock, thread: clock % 3 ? TH_A : TH_B }));
  });
  after(async () => {
    await engine.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a read applies only the records since the cached state; past its size the least recently read thread is replayed again', async () => {
    const cache = new ThreadFoldCache(engine.store, 1);
    applied = 0;
    expect((await cache.get(count, TH_A)).state).to.equal(4);
    expect(applied).to.equal(4);
    expect((await cache.get(count, TH_A)).state).to.equal(4);
    expect(applied, 'cached: nothing replayed').to.equal(4);
    await engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 10, thread: TH_A }));
    expect((await cache.get(count, TH_A)).state).to.equal(5);
    expect(applied, 'only the new record').to.equal(5);
    expect((await cache.get(count, TH_B)).state).to.equal(2);
    expect((await cache.get(count, TH_A)).state).to.equal(5);
    expect(applied, 'TH_A was evicted by TH_B and replayed whole').to.equal(5 + 2 + 5);
  });

  it('a size below 1 caches nothing and still answers (threadCacheSize: 0)', async () => {
    const cache = new ThreadFoldCache(engine.store, 0);
    applied = 0;
    expect((await cache.get(count, TH_B)).state).to.equal(2);
    expect((await cache.get(count, TH_B)).state).to.equal(2);
    expect(applied).to.equal(4);
  });
});
