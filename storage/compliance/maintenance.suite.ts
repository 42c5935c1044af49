/**
 * Maintenance: `optimize()`, the engine's hourly housekeeping, resolves with
 * a one-line summary and changes nothing a reader can see; run amid appends
 * it loses none of them; close() lets a run in flight finish; a closed store
 * refuses it like every other call.
 */
import { expect } from 'chai';
import type { RecordStore } from '../contract/record-store.js';
import type { AppendOutcome, PreparedRecord, StoredRecord } from '../contract/stored-record.js';
import { actorDid, makePrepared, threadId } from './fixtures.js';
import { expectRejectedWithCode, expectSameRecord, freshStorePerTest, idsOf, readAll, type SuiteContext } from './traits.js';

const main = threadId('main');

function someRecords(count: number, from = 0): PreparedRecord[] {
  return Array.from({ length: count }, (_, i) =>
    makePrepared({ thread: i % 3 ? main : threadId('other'), actor: actorDid(i % 2 ? 'alice' : 'bob'), clock: from + i, body: { i: from + i } }),
  );
}

/** What a reader sees: every record (as plain objects), the watermark, thread summaries and an index listing. */
async function visible(store: RecordStore) {
  return {
    all: (await readAll(store)).map((s) => ({ ...s, record: { ...s.record } })),
    watermark: await store.watermark(),
    threads: (await store.listThreads()).items.map((t) => ({ ...t })),
    main: idsOf((await store.listByThread(main, { limit: 1000 })).items),
    alice: idsOf((await store.listByActor(actorDid('alice'), { limit: 1000 })).items),
  };
}

function expectSummary(summary: unknown): void {
  expect(summary).to.be.a('string');
  expect((summary as string).trim(), 'summary').to.not.equal('');
  expect(summary as string, 'summary is one line').to.not.match(/[\r\n]/);
}

export function maintenanceSuite(context: SuiteContext): void {
  describe('maintenance', () => {
    const harness = freshStorePerTest(context);

    it('optimize() resolves with a one-line summary and leaves every record, listing and the watermark as they were', async () => {
      const { store } = harness();
      const records = someRecords(300);
      await Promise.all(records.map((p) => store.append(p)));
      const before = await visible(store);
      expect(before.all).to.have.length(300);
      expectSummary(await store.optimize());
      expect(await visible(store)).to.deep.equal(before);
      const fetched = await Promise.all(records.map((p) => store.get(p.record.id)));
      fetched.forEach((stored, i) => expectSameRecord(stored, records[i]!));
      // Again, with nothing new to do.
      expectSummary(await store.optimize());
      expect(await visible(store)).to.deep.equal(before);
    });

    it('optimize() on an empty store resolves with a summary', async () => {
      const { store } = harness();
      expectSummary(await store.optimize());
      expect(await store.watermark()).to.equal(0);
    });

    it('loses nothing when optimize() runs amid 200 concurrent appends, and every append resolves', async () => {
      const { store } = harness();
      const earlier = someRecords(50, 1000);
      await store.appendMany(earlier);
      const records = someRecords(200);
      const appends: Array<Promise<AppendOutcome>> = [];
      const optimizations: Array<Promise<string>> = [];
      const all: Array<Promise<unknown>> = [];
      for (let i = 0; i < records.length; i++) {
        const append = store.append(records[i]!);
        appends.push(append);
        all.push(append);
        if (i % 25 === 0) {
          const optimization = store.optimize();
          optimizations.push(optimization);
          all.push(optimization);
        }
        // Let some group commits start between submissions, so optimizations overlap batches being written.
        if (i % 50 === 49) await new Promise((resolve) => setImmediate(resolve));
      }
      await Promise.all(all);
      const outcomes = await Promise.all(appends);
      outcomes.forEach((outcome, i) => expect(outcome.status, `append ${i}`).to.equal('inserted'));
      (await Promise.all(optimizations)).forEach(expectSummary);
      const sequences = outcomes.map((o) => (o as { stored: StoredRecord }).stored.sequence);
      expect(await store.watermark()).to.equal(Math.max(...sequences));
      expect(idsOf(await readAll(store))).to.deep.equal([...earlier, ...records].map((p) => p.record.id));
      const fetched = await Promise.all(records.map((p) => store.get(p.record.id)));
      fetched.forEach((stored, i) => expectSameRecord(stored, records[i]!));
      // And once more after the burst, with everything settled.
      expectSummary(await store.optimize());
      expect(idsOf(await readAll(store))).to.have.length(250);
    });

    it('lets an optimize() in flight finish when close() is called', async () => {
      const { store } = harness();
      await store.appendMany(someRecords(20));
      const optimization = store.optimize();
      await store.close();
      expect(store.status).to.equal('closed');
      expectSummary(await optimization);
    });

    it('rejects optimize() on a closed store with SERVICE_UNAVAILABLE', async () => {
      const { store } = harness();
      await store.append(makePrepared({ clock: 1 }));
      await store.close();
      await expectRejectedWithCode(store.optimize(), 'SERVICE_UNAVAILABLE');
    });
  });
}
