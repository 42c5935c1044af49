import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { runStoreCompliance, temporaryStoreFactory } from '../compliance/index.js';
import { makePrepared, actorDid, threadId } from '../compliance/fixtures.js';
import { openBackupCopy, openStore } from './open-postgres-store.js';
import { SCHEMA_VERSION } from './migrations.js';
import { PostgresRecordStore } from './postgres-record-store.js';
import { clusterOrSkip, freshDatabase } from '../../test/helpers/postgres-test-support.js';
import type { ThrowawayCluster } from './throwaway-cluster.js';

describe('PostgreSQL driver', function () {
  this.timeout(60_000);
  let cluster: ThrowawayCluster;

  before(async function () {
    cluster = await clusterOrSkip(this);
    process.env['LOOM_TEST_DATABASE_URL'] = await freshDatabase(cluster, 'compliance');
  });

  runStoreCompliance({
    name: 'PostgresRecordStore',
    factory: temporaryStoreFactory(openStore, 'loom-pg-store-'),
    crash: { driverModule: fileURLToPath(new URL('./open-postgres-store.js', import.meta.url)) },
    openBackup: openBackupCopy,
  });

  describe('PostgresRecordStore on a shared database', () => {
    let url: string;
    const stores: PostgresRecordStore[] = [];
    const open = async (options: Partial<ConstructorParameters<typeof PostgresRecordStore>[0]> = {}) => {
      const store = new PostgresRecordStore({ connectionString: url, schema: 'shared', poolSize: 4, leaseCheckMs: 100, ...options });
      await store.open();
      stores.push(store);
      return store;
    };
    before(async () => {
      url = await freshDatabase(cluster, 'shared');
    });
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
    });

    it('declares a shared log; two stores opened at once migrate once and share one dense sequence', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      expect(a.capabilities).to.deep.equal({ backend: 'postgres', structuredQuery: true, queryPlan: 'sql', persistent: true, sharedLog: true, onlineBackup: true });
      const actor = actorDid('shared');
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).append(makePrepared({ thread: threadId('shared'), actor, clock: i, body: { i } }))),
      );
      const sequences = outcomes.map((o) => (o.status === 'inserted' ? o.stored.sequence : -1)).sort((x, y) => x - y);
      const start = sequences[0]!;
      expect(sequences).to.deep.equal(Array.from({ length: 200 }, (_, i) => start + i));
      expect(await a.watermark()).to.equal(await b.watermark());
      // A rival for a slot taken through the other store is refused, a resend is idempotent.
      const rival = await a.append(makePrepared({ thread: threadId('shared'), actor, clock: 1, body: { rival: true } }));
      expect(rival.status).to.equal('duplicate_clock');
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        expect((await client.query('SELECT max(version) AS v FROM shared.schema_migrations')).rows[0].v).to.equal(SCHEMA_VERSION);
      } finally {
        await client.end();
      }
    });

    it('notifies every store of commits made through any of them', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const seen: number[] = [];
      b.watchCommits((sequence) => seen.push(sequence));
      const outcome = await a.append(makePrepared({ thread: threadId('notify'), actor: actorDid('notify'), clock: 0 }));
      const sequence = outcome.status === 'inserted' ? outcome.stored.sequence : -1;
      for (let i = 0; i < 100 && !seen.includes(sequence); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen).to.include(sequence);
    });

    it('loop checkpoints are shared and never move back', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      expect(await a.readCheckpoint('loop')).to.equal(null);
      await a.writeCheckpoint('loop', 40);
      await b.writeCheckpoint('loop', 25);
      expect(await b.readCheckpoint('loop')).to.equal(40);
      await b.writeCheckpoint('loop', 41);
      expect(await a.readCheckpoint('loop')).to.equal(41);
    });

    it('slots are shared, the last write wins, and null removes one', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      expect(await a.readSlot('federation.pair.sp_1.cursor')).to.equal(null);
      await a.writeSlot('federation.pair.sp_1.cursor', 'c2');
      await b.writeSlot('federation.pair.sp_1.cursor', 'c1');
      expect(await a.readSlot('federation.pair.sp_1.cursor')).to.equal('c1');
      await a.writeSlot('federation.pair.sp_1.cursor', null);
      expect(await b.readSlot('federation.pair.sp_1.cursor')).to.equal(null);
      await b.writeSlot('federation.pair.sp_1.cursor', null);
    });

    it('withLock runs one holder at a time across stores, and releases on failure', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const timeline: string[] = [];
      const section = (store: PostgresRecordStore, name: string) =>
        store.withLock('key', async () => {
          timeline.push(`${name}:in`);
          await new Promise((resolve) => setTimeout(resolve, 50));
          timeline.push(`${name}:out`);
        });
      await Promise.all([section(a, 'a1'), section(b, 'b1'), section(a, 'a2'), section(b, 'b2')]);
      for (let i = 0; i < timeline.length; i += 2) expect(timeline[i + 1]).to.equal(timeline[i]!.replace(':in', ':out'));
      let failed = false;
      await a.withLock('key', async () => Promise.reject(new Error('boom'))).catch(() => (failed = true));
      expect(failed).to.equal(true);
      expect(await b.withLock('key', async () => 'after a failure')).to.equal('after a failure');
    });

    it('a lease is held by one store at a time and passes on when its holder closes', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      const changes: string[] = [];
      const la = a.lease('singleton', (held) => changes.push(`a:${held}`));
      await new Promise((resolve) => setTimeout(resolve, 150));
      const lb = b.lease('singleton', (held) => changes.push(`b:${held}`));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect([la.held, lb.held]).to.deep.equal([true, false]);
      await a.close();
      stores.splice(stores.indexOf(a), 1);
      for (let i = 0; i < 50 && !lb.held; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(lb.held).to.equal(true);
      expect(changes).to.deep.equal(['a:true', 'a:false', 'b:true']);
    });
  });
});
