/**
 * Lifecycle: status, idempotent close, refusal on a closed store, close
 * flushing appends in flight, and (for persistent stores) reopening: every
 * record, its sequence, the thread index and the clock slots survive, and
 * sequences continue above the old watermark.
 */
import { expect } from 'chai';
import { parseRecordQuery } from '../contract/query/parse-query.js';
import type { RecordStore } from '../contract/record-store.js';
import type { StoredRecord } from '../contract/stored-record.js';
import { actorDid, makePrepared, threadId } from './fixtures.js';
import { expectRejectedWithCode, expectSameRecord, freshStorePerTest, idsOf, readAll, reopenStore as reopen, requireCapability, type SuiteContext } from './traits.js';

const main = threadId('main');

function someRecords(count: number, from = 0) {
  return Array.from({ length: count }, (_, i) =>
    makePrepared({ thread: i % 3 ? main : threadId('other'), actor: actorDid(i % 2 ? 'alice' : 'bob'), clock: from + i, body: { i: from + i } }),
  );
}

/** Everything a reopened store must still answer identically. */
async function snapshot(store: RecordStore) {
  return {
    all: (await readAll(store)).map((s) => ({ ...s, record: { ...s.record } })),
    watermark: await store.watermark(),
    threads: (await store.listThreads()).items.map((t) => ({ ...t })),
    main: idsOf((await store.listByThread(main, { limit: 1000 })).items),
    alice: idsOf((await store.listByActor(actorDid('alice'), { limit: 1000 })).items),
  };
}

export function lifecycleSuite(context: SuiteContext): void {
  describe('lifecycle', () => {
    const harness = freshStorePerTest(context);

    it('is open when the factory returns it, and closed after close()', async () => {
      const { store } = harness();
      expect(store.status).to.equal('open');
      await store.close();
      expect(store.status).to.equal('closed');
    });

    it('closes idempotently, including two overlapping calls', async () => {
      const { store } = harness();
      await store.append(makePrepared({ clock: 1 }));
      await Promise.all([store.close(), store.close()]);
      await store.close();
      expect(store.status).to.equal('closed');
    });

    it('rejects every operation on a closed store with SERVICE_UNAVAILABLE', async () => {
      const { store } = harness();
      const prepared = makePrepared({ clock: 1 });
      await store.append(prepared);
      await store.close();
      await expectRejectedWithCode(store.append(makePrepared({ clock: 2 })), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.appendMany([makePrepared({ clock: 3 })]), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.get(prepared.record.id), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.listByThread(main), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.listByActor(actorDid('alice')), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.changesSince(0), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.watermark(), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.listThreads(), 'SERVICE_UNAVAILABLE');
      if (store.capabilities.structuredQuery) await expectRejectedWithCode(store.query(parseRecordQuery({})), 'SERVICE_UNAVAILABLE');
    });

    it('settles appends in flight before close() resolves', async () => {
      const { store } = harness();
      const records = someRecords(200);
      const settled = Promise.all(records.map((p) => store.append(p)));
      await store.close();
      const outcomes = await settled;
      outcomes.forEach((outcome, i) => expect(outcome.status, `append ${i}`).to.equal('inserted'));
    });
  });

  describe('lifecycle across reopen', () => {
    requireCapability(context, (c) => c.persistent);
    const harness = freshStorePerTest(context);

    it('keeps every record, sequence, listing and thread summary after close and reopen', async () => {
      const first = harness();
      const records = someRecords(300);
      await Promise.all(records.map((p) => first.store.append(p)));
      const before = await snapshot(first.store);
      expect(before.all).to.have.length(300);
      const store = await reopen(first);
      expect(await snapshot(store)).to.deep.equal(before);
      const fetched = await Promise.all(records.map((p) => store.get(p.record.id)));
      fetched.forEach((stored, i) => expectSameRecord(stored, records[i]!));
    });

    it('continues sequences above the old watermark and still knows ids and clock slots', async () => {
      const first = harness();
      const old = someRecords(20);
      await first.store.appendMany(old);
      const watermark = await first.store.watermark();
      const store = await reopen(first);
      const resent = await store.append(old[5]!);
      expect(resent.status).to.equal('exists');
      const rival = makePrepared({ ...old[6]!.record, body: { rival: true } });
      const conflict = await store.append(rival);
      expect(conflict.status).to.equal('duplicate_clock');
      expect((conflict as { existing: StoredRecord }).existing.record.id).to.equal(old[6]!.record.id);
      const fresh = await store.appendMany(someRecords(5, 100));
      const sequences = fresh.map((o) => (o as { stored: StoredRecord }).stored.sequence);
      expect(sequences[0]).to.be.greaterThan(watermark);
      sequences.forEach((s, i) => i > 0 && expect(s).to.be.greaterThan(sequences[i - 1]!));
      expect(await store.watermark()).to.equal(sequences[4]);
    });

    it('keeps all of 1000 concurrent appends, and appends made while closing', async () => {
      const first = harness();
      const records = someRecords(1000);
      const settled = Promise.all(records.map((p) => first.store.append(p)));
      await Promise.resolve();
      const store = await reopen(first);
      (await settled).forEach((outcome, i) => expect(outcome.status, `append ${i}`).to.equal('inserted'));
      expect(idsOf(await readAll(store))).to.deep.equal(records.map((p) => p.record.id));
    });

    it('reopens on the same instance after close', async () => {
      const { store } = harness();
      const records = someRecords(10);
      await store.appendMany(records);
      await store.close();
      await store.open();
      expect(store.status).to.equal('open');
      expect(idsOf(await readAll(store))).to.deep.equal(records.map((p) => p.record.id));
    });
  });
}
