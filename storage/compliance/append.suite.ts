/**
 * Append: insert, idempotent resend, the (actor, thread, clock) rule, and
 * concurrent submissions resolved exactly as if they arrived one by one.
 */
import { expect } from 'chai';
import type { RecordStore } from '../contract/record-store.js';
import type { AppendOutcome, PreparedRecord, StoredRecord } from '../contract/stored-record.js';
import { actorDid, makePrepared, resend, seededRandom, threadId } from './fixtures.js';
import { expectOutcomes, OneByOneModel } from './one-by-one-model.js';
import { expectSameRecord, freshStorePerTest, idsOf, readAll, type SuiteContext } from './traits.js';

/** Submits every entry without waiting, logging the order in which the promises settle. */
function submitConcurrently(store: RecordStore, entries: ReadonlyArray<PreparedRecord | readonly PreparedRecord[]>) {
  const acks: AppendOutcome[] = [];
  const promises = entries.map((entry) =>
    (Array.isArray(entry) ? store.appendMany(entry as readonly PreparedRecord[]) : store.append(entry as PreparedRecord).then((o) => [o])).then((outcomes) => {
      acks.push(...outcomes);
      return outcomes;
    }),
  );
  return { acks, all: Promise.all(promises).then((lists) => lists.flat()) };
}

function expectIncreasingSequences(outcomes: readonly AppendOutcome[], what: string): void {
  const sequences = outcomes.filter((o) => o.status === 'inserted').map((o) => (o as { stored: StoredRecord }).stored.sequence);
  sequences.forEach((sequence, i) => {
    if (i > 0) expect(sequence, `${what}: sequence #${i} after ${sequences[i - 1]}`).to.be.greaterThan(sequences[i - 1]!);
  });
}

export function appendSuite(context: SuiteContext): void {
  describe('append', () => {
    const harness = freshStorePerTest(context);
    const alice = actorDid('alice');
    const bob = actorDid('bob');
    const main = threadId('main');
    const side = threadId('side');

    it('stores a new record and returns it with a positive sequence', async () => {
      const { store } = harness();
      const prepared = makePrepared({ thread: main, clock: 1, body: { kind: 'task', n: 1 } });
      const outcome = await store.append(prepared);
      expect(outcome.status).to.equal('inserted');
      expectSameRecord((outcome as { stored: StoredRecord }).stored, prepared);
      expectSameRecord(await store.get(prepared.record.id), prepared);
    });

    it('answers a resend with exists, the original sequence, receipt time and judged_by', async () => {
      const { store } = harness();
      const prepared = makePrepared({ thread: main, clock: 1, judged_by: 'did:sync:agent:judge', createdAt: 1_000 });
      const first = await store.append(prepared);
      const again = await store.append(prepared);
      const later = await store.append(resend(prepared, { createdAt: 9_000, judged_by: null }));
      expect(again.status).to.equal('exists');
      expect(later.status).to.equal('exists');
      for (const outcome of [again, later]) {
        const stored = (outcome as { stored: StoredRecord }).stored;
        expect(stored.sequence).to.equal((first as { stored: StoredRecord }).stored.sequence);
        expectSameRecord(stored, prepared);
      }
      expectSameRecord(await store.get(prepared.record.id), prepared);
      expect(await readAll(store)).to.have.length(1);
    });

    it('refuses another record in an occupied (actor, thread, clock) slot with duplicate_clock', async () => {
      const { store } = harness();
      const holder = makePrepared({ thread: main, actor: alice, clock: 7, body: { v: 1 } });
      const rival = makePrepared({ thread: main, actor: alice, clock: 7, body: { v: 2 } });
      const first = await store.append(holder);
      const watermark = await store.watermark();
      const outcome = await store.append(rival);
      expect(outcome.status).to.equal('duplicate_clock');
      const existing = (outcome as { existing: StoredRecord }).existing;
      expect(existing.record.id).to.equal(holder.record.id);
      expect(existing.sequence).to.equal((first as { stored: StoredRecord }).stored.sequence);
      expect(await store.get(rival.record.id)).to.equal(undefined);
      expect(await store.watermark()).to.equal(watermark);
      // A resend of the loser is still a clock conflict, not an insert.
      expect((await store.append(rival)).status).to.equal('duplicate_clock');
    });

    it('accepts the same clock on another thread, from another actor, or at another clock', async () => {
      const { store } = harness();
      const records = [
        makePrepared({ thread: main, actor: alice, clock: 3, body: { v: 1 } }),
        makePrepared({ thread: side, actor: alice, clock: 3, body: { v: 2 } }),
        makePrepared({ thread: main, actor: bob, clock: 3, body: { v: 3 } }),
        makePrepared({ thread: main, actor: alice, clock: 4, body: { v: 4 } }),
      ];
      for (const each of records) expect((await store.append(each)).status).to.equal('inserted');
    });

    it('resolves conflicts among concurrent appends exactly as if they arrived one by one', async () => {
      const { store } = harness();
      const earlier = makePrepared({ thread: main, actor: bob, clock: 1, body: { v: 'earlier' } });
      const a = makePrepared({ thread: main, actor: alice, clock: 1, body: { v: 'a' } });
      const aRival = makePrepared({ thread: main, actor: alice, clock: 1, body: { v: 'a-rival' } });
      const c = makePrepared({ thread: main, actor: alice, clock: 2, body: { v: 'c' } });
      const cRival = makePrepared({ thread: main, actor: alice, clock: 2, body: { v: 'c-rival' } });
      const loser = makePrepared({ thread: main, actor: bob, clock: 1, body: { v: 'loser' } });
      const e = makePrepared({ thread: side, actor: alice, clock: 1, body: { v: 'e' } });
      const model = new OneByOneModel();
      const known = new Map<string, StoredRecord>();
      expectOutcomes([await store.append(earlier)], [model.apply(earlier)], known, () => 'earlier');

      const entries = [a, resend(a, { createdAt: 5 }), aRival, c, loser, loser, a, cRival, e, earlier, cRival];
      const names = ['a', 'a resent', 'a rival', 'c', 'loser', 'loser again', 'a again', 'c rival', 'e', 'earlier', 'c rival again'];
      const { acks, all } = submitConcurrently(store, entries);
      const outcomes = await all;
      expectOutcomes(outcomes, entries.map((p) => model.apply(p)), known, (i) => names[i]!);
      expectIncreasingSequences(outcomes, 'submission order');
      expectIncreasingSequences(acks, 'acknowledgement order');
      expect(idsOf(await readAll(store))).to.deep.equal(model.inserted);
    });

    it('resolves a seeded random mix of appends, appendMany and resends like the sequential model', async () => {
      const { store } = harness();
      const random = seededRandom(20240607);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const pool: PreparedRecord[] = [];
      for (const actor of [alice, bob, actorDid('carol')]) {
        for (const thread of [main, side]) {
          for (let clock = 0; clock < 8; clock++) {
            for (let v = 0; v < 3; v++) pool.push(makePrepared({ thread, actor, clock, body: { v }, createdAt: 1_000 + pool.length }));
          }
        }
      }
      const model = new OneByOneModel();
      const known = new Map<string, StoredRecord>();
      for (let i = 0; i < 15; i++) {
        const prepared = pick(pool);
        expectOutcomes([await store.append(prepared)], [model.apply(prepared)], known, () => `pre-insert ${i}`);
      }

      const entries: Array<PreparedRecord | PreparedRecord[]> = [];
      const flat: PreparedRecord[] = [];
      while (flat.length < 300) {
        const group = Array.from({ length: random() < 0.7 ? 1 : 1 + Math.floor(random() * 5) }, () => pick(pool));
        entries.push(group.length === 1 && random() < 0.8 ? group[0]! : group);
        flat.push(...group);
      }
      const { acks, all } = submitConcurrently(store, entries);
      const outcomes = await all;
      expectOutcomes(outcomes, flat.map((p) => model.apply(p)), known, (i) => `submission ${i} (${flat[i]!.record.id.slice(0, 8)})`);
      expectIncreasingSequences(outcomes, 'submission order');
      expectIncreasingSequences(acks, 'acknowledgement order');
      const stored = await readAll(store);
      expect(idsOf(stored)).to.deep.equal(model.inserted);
      expect(await store.watermark()).to.equal(stored[stored.length - 1]!.sequence);
    });

    it('appendMany answers in input order, resolving its own duplicates one by one', async () => {
      const { store } = harness();
      const a = makePrepared({ thread: main, clock: 1, body: { v: 1 } });
      const b = makePrepared({ thread: main, clock: 2, body: { v: 2 } });
      const bRival = makePrepared({ thread: main, clock: 2, body: { v: 3 } });
      const batch = [a, b, a, bRival, b];
      const model = new OneByOneModel();
      const outcomes = await store.appendMany(batch);
      expectOutcomes(outcomes, batch.map((p) => model.apply(p)), new Map(), (i) => `entry ${i}`);
      expectIncreasingSequences(outcomes, 'input order');
      expect(await store.appendMany([])).to.deep.equal([]);
    });

    it('keeps every one of 1000 concurrent appends, sequences increasing in submission order', async () => {
      const { store } = harness();
      const records = Array.from({ length: 1000 }, (_, i) =>
        makePrepared({ thread: i % 2 ? main : side, actor: i % 3 ? alice : bob, clock: i, body: { i } }),
      );
      const { acks, all } = submitConcurrently(store, records);
      const outcomes = await all;
      outcomes.forEach((outcome, i) => expect(outcome.status, `append ${i}`).to.equal('inserted'));
      expectIncreasingSequences(outcomes, 'submission order');
      expectIncreasingSequences(acks, 'acknowledgement order');
      const stored = await readAll(store);
      expect(idsOf(stored)).to.deep.equal(records.map((p) => p.record.id));
      const fetched = await Promise.all(records.map((p) => store.get(p.record.id)));
      fetched.forEach((each, i) => expectSameRecord(each, records[i]!));
      expect(await store.watermark()).to.equal(stored[999]!.sequence);
    });
  });
}
