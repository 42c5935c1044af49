/**
 * Online backup (drivers with `capabilities.onlineBackup`): a copy taken
 * while appends keep arriving holds every record acknowledged before the
 * call, is one consistent prefix of the log (no gaps, the same sequences and
 * bytes), and opens as a store of the same driver. A driver without the
 * capability refuses with BACKUP_NOT_SUPPORTED.
 */
import { rm } from 'node:fs/promises';
import { expect } from 'chai';
import type { StoredRecord } from '../contract/stored-record.js';
import { actorDid, makePrepared, threadId } from './fixtures.js';
import { loadStoreOpener } from './load-store-opener.js';
import { makeTemporaryLocation } from './temporary-store-factory.js';
import { expectRejectedWithCode, freshStorePerTest, readAll, type SuiteContext } from './traits.js';

export function backupSuite(context: SuiteContext): void {
  describe('online backup', () => {
    const harness = freshStorePerTest(context);

    it('refuses with BACKUP_NOT_SUPPORTED when the driver takes none (or has no backup method)', async function () {
      if (context.capabilities().onlineBackup) this.skip();
      const { store } = harness();
      if (store.backup === undefined) return;
      const location = await makeTemporaryLocation('loom-backup-');
      try {
        await expectRejectedWithCode(store.backup(location), 'BACKUP_NOT_SUPPORTED');
      } finally {
        await rm(location, { recursive: true, force: true });
      }
    });

    it('copies a consistent prefix holding every acknowledged record while appends go on', async function () {
      if (!context.capabilities().onlineBackup || !context.options.crash) this.skip();
      this.timeout(60_000);
      const { store } = harness();
      const prepared = (from: number, count: number) =>
        Array.from({ length: count }, (_, i) => makePrepared({ thread: threadId(`t${(from + i) % 7}`), actor: actorDid('writer'), clock: from + i, body: { i: from + i } }));
      const before = await store.appendMany(prepared(0, 300));
      // More arrive while the copy is taken (none awaited before the call).
      const during = Promise.all(prepared(300, 20).map((p) => store.append(p)));
      const location = await makeTemporaryLocation('loom-backup-');
      try {
        const backup = await store.backup!(location);
        await during;
        expect(backup.watermark).to.be.at.least(before[before.length - 1]!.status === 'inserted' ? 300 : 0);
        expect(backup.records).to.equal(backup.watermark);

        const openCopy = context.options.openBackup ?? (await loadStoreOpener(context.options.crash!.driverModule, context.options.crash!.exportName));
        const copy = await openCopy(location);
        try {
          const copied: StoredRecord[] = await readAll(copy);
          expect(copied.map((s) => s.sequence)).to.deep.equal(Array.from({ length: backup.watermark }, (_, i) => i + 1));
          expect(await copy.watermark()).to.equal(backup.watermark);
          for (const outcome of before) {
            const stored = (outcome as { stored: StoredRecord }).stored;
            const got = await copy.get(stored.record.id);
            expect(got?.sequence).to.equal(stored.sequence);
            expect(got?.record).to.deep.equal(stored.record);
          }
          // The copy is a working store: it takes the next record after its own prefix.
          const next = await copy.append(makePrepared({ thread: threadId('after'), actor: actorDid('writer'), clock: 1 }));
          expect((next as { stored: StoredRecord }).stored.sequence).to.equal(backup.watermark + 1);
        } finally {
          await copy.close();
        }
      } finally {
        await rm(location, { recursive: true, force: true });
      }
    });
  });
}
