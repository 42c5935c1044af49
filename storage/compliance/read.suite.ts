/**
 * Reads: get, thread and actor listings with cursors, the changes feed, the
 * watermark and the thread index, over interleaved records so that a listing
 * that leaks another thread's records or skips a page boundary shows.
 */
import { expect } from 'chai';
import { computeRecordId } from '../../core/records/record-id.js';
import { TH_CONSENT } from '../../core/records/reserved-threads.js';
import { compareStrings } from '../contract/query/compare-values.js';
import type { PageRequest, RecordPage, ThreadSummary } from '../contract/record-store.js';
import type { PreparedRecord, StoredRecord } from '../contract/stored-record.js';
import { actorDid, makePrepared, seededRandom, threadId } from './fixtures.js';
import { expectSameRecord, freshStorePerTest, idsOf, insertMany, sharedStore, type SuiteContext } from './traits.js';

/** Follows nextAfter until null, checking each page's shape on the way. */
async function pageThrough(list: (page: PageRequest) => Promise<RecordPage>, limit: number | undefined): Promise<StoredRecord[][]> {
  const pages: StoredRecord[][] = [];
  let after: number | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await list(limit === undefined ? { after } : { after, limit });
    expect(page.items.length, 'page size').to.be.at.most(limit ?? 100);
    pages.push(page.items);
    if (page.nextAfter === null) return pages;
    expect(page.items.length, 'a page with a next cursor is full').to.equal(limit ?? 100);
    expect(page.nextAfter, 'nextAfter is the last sequence of the page').to.equal(page.items[page.items.length - 1]!.sequence);
    after = page.nextAfter;
  }
  throw new Error('pagination did not end');
}

export function readSuite(context: SuiteContext): void {
  const threads = { eight: threadId('eight'), eleven: threadId('eleven'), consent: TH_CONSENT, large: threadId('large'), single: threadId('single') };
  const sizes: Record<string, number> = { [threads.eight]: 8, [threads.eleven]: 11, [threads.consent]: 3, [threads.large]: 105, [threads.single]: 1 };
  const actors = [actorDid('alice'), actorDid('bob'), actorDid('carol')];

  describe('reads', () => {
    let stored: StoredRecord[] = [];
    let prepared: PreparedRecord[] = [];
    const harness = sharedStore(context, async (store) => {
      const random = seededRandom(7);
      prepared = [];
      for (const [thread, size] of Object.entries(sizes)) {
        for (let clock = 0; clock < size; clock++) {
          prepared.push(makePrepared({ thread, actor: actors[(clock + thread.length) % 3]!, clock, body: { clock }, createdAt: 1_700_000_000_000 + clock }));
        }
      }
      // Interleave threads and actors so sequences of one thread are not contiguous.
      for (let i = prepared.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [prepared[i], prepared[j]] = [prepared[j]!, prepared[i]!];
      }
      stored = [];
      for (let i = 0; i < prepared.length; i += 25) stored.push(...(await insertMany(store, prepared.slice(i, i + 25))));
    });
    const on = (predicate: (s: StoredRecord) => boolean) => idsOf(stored.filter(predicate));

    it('gets each record by id, and undefined for an unknown or malformed id', async () => {
      const { store } = harness();
      for (let i = 0; i < prepared.length; i += 9) expectSameRecord(await store.get(prepared[i]!.record.id), prepared[i]!);
      expect(await store.get('0'.repeat(64))).to.equal(undefined);
      expect(await store.get('not-an-id')).to.equal(undefined);
    });

    for (const [label, limit] of [['limit 4', 4], ['limit 3', 3], ['the default limit', undefined], ['limit 1000', 1000]] as const) {
      it(`lists every thread page by page with ${label}, in sequence order`, async () => {
        const { store } = harness();
        for (const thread of Object.values(threads)) {
          const pages = await pageThrough((page) => store.listByThread(thread, page), limit);
          expect(idsOf(pages.flat()), thread).to.deep.equal(on((s) => s.record.thread === thread));
        }
      });

      it(`lists every actor page by page with ${label}, in sequence order`, async () => {
        const { store } = harness();
        for (const actor of actors) {
          const pages = await pageThrough((page) => store.listByActor(actor, page), limit);
          expect(idsOf(pages.flat()), actor).to.deep.equal(on((s) => s.record.actor === actor));
        }
      });
    }

    it('ends a listing whose size is a multiple of the limit without an empty page', async () => {
      const { store } = harness();
      const pages = await pageThrough((page) => store.listByThread(threads.eight, page), 4);
      expect(pages.map((p) => p.length)).to.deep.equal([4, 4]);
    });

    it('starts a listing after any cursor, and answers an unknown thread or actor with an empty last page', async () => {
      const { store } = harness();
      const cursor = stored[40]!.sequence;
      const page = await store.listByThread(threads.large, { after: cursor, limit: 1000 });
      expect(idsOf(page.items)).to.deep.equal(on((s) => s.record.thread === threads.large && s.sequence > cursor));
      expect(await store.listByThread(threadId('nobody'))).to.deep.equal({ items: [], nextAfter: null });
      expect(await store.listByActor(actorDid('nobody'))).to.deep.equal({ items: [], nextAfter: null });
      const again = await store.listByThread(threads.large, { after: cursor, limit: 1000 });
      expect(idsOf(again.items), 'a repeated listing is identical').to.deep.equal(idsOf(page.items));
    });

    it('feeds changes after a sequence, ascending, up to the limit', async () => {
      const { store } = harness();
      expect(idsOf(await store.changesSince(0))).to.deep.equal(idsOf(stored));
      const cursor = stored[17]!.sequence;
      expect(idsOf(await store.changesSince(cursor, 10))).to.deep.equal(idsOf(stored.slice(18, 28)));
      expect(await store.changesSince(stored[stored.length - 1]!.sequence)).to.deep.equal([]);
      const sequences = (await store.changesSince(0)).map((s) => s.sequence);
      sequences.forEach((sequence, i) => i > 0 && expect(sequence).to.be.greaterThan(sequences[i - 1]!));
    });

    it('reports the highest sequence as the watermark', async () => {
      const { store } = harness();
      expect(await store.watermark()).to.equal(Math.max(...stored.map((s) => s.sequence)));
    });

    it('summarises threads in id order with counts and first/last sequences, page by page', async () => {
      const { store } = harness();
      const expected: ThreadSummary[] = Object.values(threads)
        .sort(compareStrings)
        .map((thread) => {
          const mine = stored.filter((s) => s.record.thread === thread);
          return { thread, recordCount: mine.length, firstSequence: mine[0]!.sequence, lastSequence: mine[mine.length - 1]!.sequence };
        });
      expect((await store.listThreads()).items.map((t) => ({ ...t }))).to.deep.equal(expected);
      const pages: ThreadSummary[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.listThreads({ after, limit: 2 });
        pages.push(page.items);
        if (page.nextAfter === null) break;
        expect(page.nextAfter).to.equal(page.items[page.items.length - 1]!.thread);
        after = page.nextAfter;
      }
      expect(pages.map((p) => p.length)).to.deep.equal([2, 2, 1]);
      expect(pages.flat().map((t) => t.thread)).to.deep.equal(expected.map((t) => t.thread));
      const afterSecond = await store.listThreads({ after: expected[1]!.thread });
      expect(afterSecond.items.map((t) => t.thread)).to.deep.equal(expected.slice(2).map((t) => t.thread));
      expect(afterSecond.nextAfter).to.equal(null);
      if (store.countThreads) expect(await store.countThreads()).to.equal(expected.length);
    });
  });

  describe('reads on an empty store', () => {
    const harness = freshStorePerTest(context);

    it('has watermark 0, no changes, no threads and no records', async () => {
      const { store } = harness();
      expect(await store.watermark()).to.equal(0);
      expect(await store.changesSince(0)).to.deep.equal([]);
      expect(await store.listThreads()).to.deep.equal({ items: [], nextAfter: null });
      expect(await store.listByThread(threadId('main'))).to.deep.equal({ items: [], nextAfter: null });
    });

    it('round-trips every kind of JSON value in a body exactly, keeping the id valid', async () => {
      const { store } = harness();
      const body = {
        text: 'quote " backslash \\ newline \n tab \t nul-ish \u0001 emoji 😀 accents éÉ',
        empty: '',
        numbers: [0, -1, 1.5, -0.000001, 1e-7, 123456789.125, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e21],
        flags: [true, false, null],
        nested: { deeper: { deepest: { list: [[], {}, [{ a: 1 }]] } }, '': 'empty key', 'ключ': 'unicode key' },
        namespace: 'research',
      };
      const prepared = makePrepared({ clock: 1, body, parents: ['a'.repeat(64), 'b'.repeat(64)], act: 'MAP', data_type: 'MORPHISM', judged_by: 'x' });
      expect((await store.append(prepared)).status).to.equal('inserted');
      const stored = await store.get(prepared.record.id);
      expectSameRecord(stored, prepared);
      expect(computeRecordId(stored!.record)).to.equal(prepared.record.id);
    });

    it('serialises thread pages exactly as JSON.stringify of the records, page by page', async function () {
      const { store } = harness();
      if (!store.listByThreadSerialized) this.skip();
      const main = threadId('serialized');
      const judged = [null, 'plain', 'quote " backslash \\ newline \n tab \t \u0001 \u2028 emoji 😀 é', '\u0007 bell ,"created_at":3'];
      const prepared = Array.from({ length: 7 }, (_, clock) =>
        makePrepared({
          thread: main,
          actor: actorDid(`w-${clock % 2}.x_y%41`),
          clock,
          parents: clock % 2 ? ['c'.repeat(64)] : [],
          act: clock % 3 ? 'KNOW' : 'LEARN',
          data_type: clock % 2 ? 'SCALAR' : 'MORPHISM',
          judged_by: judged[clock % judged.length]!,
          // Keys and texts that look like a store's own row fields must not confuse a driver that cuts rows.
          body: { text: 'quote " backslash \\ \n 😀 ключ', n: clock * 1.5, big: 1e21, tiny: 1e-7, nested: { list: [[], {}, [null, true]] }, '': 'empty key', created_at: ',"created_at":1}', namespace_like: { created_at: 2 } },
        }),
      );
      await store.appendMany(prepared);
      // Read at once (possibly from the unapplied tail) and after everything is applied.
      for (const moment of ['now', 'applied']) {
        if (moment === 'applied') await store.listThreads();
        for (const limit of [3, 100]) {
          let after = 0;
          const texts: string[] = [];
          for (;;) {
            const page = await store.listByThreadSerialized!(main, { after, limit });
            const plain = await store.listByThread(main, { after, limit });
            expect(page.sequences).to.deep.equal(plain.items.map((item) => item.sequence));
            expect(page.nextAfter).to.equal(plain.nextAfter);
            expect(page.json).to.equal(plain.items.map((item) => JSON.stringify(item.record)).join(','));
            texts.push(...plain.items.map((item) => JSON.stringify(item.record)));
            if (page.nextAfter === null) break;
            after = page.nextAfter;
          }
          expect(texts, `${moment}, limit ${limit}`).to.deep.equal(prepared.map((p) => JSON.stringify(p.record)));
        }
      }
    });
  });
}
