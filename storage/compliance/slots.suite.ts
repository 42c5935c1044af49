/**
 * Store slots (`readSlot`/`writeSlot`, storage/contract/record-store.ts):
 * small named values that belong to a shared log rather than to one server.
 * Run only for a store that implements both: a missing slot reads null, the
 * last write wins, null removes, names never share a value, values come back
 * verbatim, slots are no records, a closed store refuses them, and (for a
 * persistent store) they survive a reopen. With `takeSlot` too: a take
 * gets the value once (of concurrent takes, one), and a slot written with an
 * expiry reads and takes as unset once it has passed.
 */
import { expect } from 'chai';
import type { RecordStore } from '../contract/record-store.js';
import { expectRejectedWithCode, freshStorePerTest, reopenStore, requireCapability, requireMethods, type SuiteContext } from './traits.js';

type SlotStore = Required<Pick<RecordStore, 'readSlot' | 'writeSlot' | 'takeSlot'>>;

/** The store's slot methods (requireMethods has checked they exist). */
const slots = (store: RecordStore) => store as RecordStore & SlotStore;

export function slotsSuite(context: SuiteContext): void {
  describe('slots', () => {
    requireMethods(context, 'readSlot', 'writeSlot');
    const harness = freshStorePerTest(context);

    it('reads null for a slot never written', async () => {
      expect(await slots(harness().store).readSlot('never.written')).to.equal(null);
    });

    it('reads back what was written; a later write replaces it; null removes it, twice without error', async () => {
      const store = slots(harness().store);
      await store.writeSlot('pair.cursor', 'c1');
      expect(await store.readSlot('pair.cursor')).to.equal('c1');
      await store.writeSlot('pair.cursor', 'c2');
      expect(await store.readSlot('pair.cursor')).to.equal('c2');
      await store.writeSlot('pair.cursor', null);
      expect(await store.readSlot('pair.cursor')).to.equal(null);
      await store.writeSlot('pair.cursor', null);
      expect(await store.readSlot('pair.cursor')).to.equal(null);
    });

    it('keeps each name to its own value: names that differ by a suffix, a prefix or case share nothing', async () => {
      const store = slots(harness().store);
      const names = ['a', 'a.b', 'a.b.c', 'x.a.b', 'A.B'];
      for (const name of names) await store.writeSlot(name, `value of ${name}`);
      for (const name of names) expect(await store.readSlot(name), name).to.equal(`value of ${name}`);
      await store.writeSlot('a.b', null);
      expect(await store.readSlot('a.b')).to.equal(null);
      for (const name of names.filter((n) => n !== 'a.b')) expect(await store.readSlot(name), name).to.equal(`value of ${name}`);
    });

    it('gives values back verbatim (JSON text, quotes, newlines, non-ASCII, 64 KiB)', async () => {
      const store = slots(harness().store);
      const values = ['{"sealed":"AbC+/=","n":1}', `it's "quoted"\\\n\tnext line`, 'ünïcödé ✓ 𝄞', 'x'.repeat(64 * 1024)];
      for (const [i, value] of values.entries()) await store.writeSlot(`v${i}`, value);
      for (const [i, value] of values.entries()) expect(await store.readSlot(`v${i}`)).to.equal(value);
    });

    it('are no records: the log, its watermark and the thread list stay empty', async () => {
      const store = slots(harness().store);
      await store.writeSlot('pair.secret', 'sealed');
      expect(await store.watermark()).to.equal(0);
      expect(await store.changesSince(0)).to.deep.equal([]);
      expect((await store.listThreads()).items).to.deep.equal([]);
    });

    it('are refused on a closed store with SERVICE_UNAVAILABLE', async () => {
      const store = slots(harness().store);
      await store.close();
      await expectRejectedWithCode(store.readSlot('pair.cursor'), 'SERVICE_UNAVAILABLE');
      await expectRejectedWithCode(store.writeSlot('pair.cursor', 'c1'), 'SERVICE_UNAVAILABLE');
    });
  });

  describe('slots taken once, and slots that expire', () => {
    requireMethods(context, 'readSlot', 'writeSlot', 'takeSlot');
    const harness = freshStorePerTest(context);

    it('takes a slot once: the value, then null; a slot never written takes null', async () => {
      const store = slots(harness().store);
      await store.writeSlot('challenge.c1', '{"purpose":"register"}');
      expect(await store.takeSlot('challenge.c1')).to.equal('{"purpose":"register"}');
      expect(await store.takeSlot('challenge.c1')).to.equal(null);
      expect(await store.readSlot('challenge.c1')).to.equal(null);
      expect(await store.takeSlot('never.written')).to.equal(null);
    });

    it('gives a slot to exactly one of 20 concurrent takes', async () => {
      const store = slots(harness().store);
      await store.writeSlot('challenge.race', 'only once');
      const taken = await Promise.all(Array.from({ length: 20 }, () => store.takeSlot('challenge.race')));
      expect(taken.filter((value) => value !== null)).to.deep.equal(['only once']);
    });

    it('reads and takes an expired slot as unset; one not yet expired as written; a later write without expiry keeps it', async () => {
      const store = slots(harness().store);
      await store.writeSlot('expired', 'old', Date.now() - 1);
      await store.writeSlot('fresh', 'new', Date.now() + 60_000);
      expect(await store.readSlot('expired')).to.equal(null);
      expect(await store.takeSlot('expired')).to.equal(null);
      expect(await store.readSlot('fresh')).to.equal('new');
      await store.writeSlot('fresh', 'kept');
      expect(await store.readSlot('fresh')).to.equal('kept');
      expect(await store.takeSlot('fresh')).to.equal('kept');
    });

    it('refuses a take on a closed store with SERVICE_UNAVAILABLE', async () => {
      const store = slots(harness().store);
      await store.close();
      await expectRejectedWithCode(store.takeSlot('x'), 'SERVICE_UNAVAILABLE');
    });
  });

  describe('slots across reopen', () => {
    requireCapability(context, (c) => c.persistent);
    requireMethods(context, 'readSlot', 'writeSlot');
    const harness = freshStorePerTest(context);

    it('keeps every slot written, and keeps a removed one removed', async () => {
      const first = harness();
      await slots(first.store).writeSlot('kept', 'v2');
      await slots(first.store).writeSlot('removed', 'v1');
      await slots(first.store).writeSlot('removed', null);
      const store = slots(await reopenStore(first));
      expect(await store.readSlot('kept')).to.equal('v2');
      expect(await store.readSlot('removed')).to.equal(null);
    });
  });
}
