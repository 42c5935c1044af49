/**
 * The child process of the crash suite. Arguments: the driver module, the
 * name of its `OpenStoreAt` export, and the location. It opens the store and
 * appends without pause (single appends and small appendMany batches, many in
 * flight) until it is SIGKILLed, writing `<sequence> <id>` to stdout the
 * moment each append resolves: every line is a durability promise.
 */
import type { RecordStore } from '../contract/record-store.js';
import type { AppendOutcome } from '../contract/stored-record.js';
import { actorDid, makePrepared, threadId } from './fixtures.js';
import { loadStoreOpener } from './load-store-opener.js';

const WORKERS = 24;
// A safety net if the parent dies without killing us.
const GIVE_UP_AFTER_MS = 60_000;

function acknowledge(outcome: AppendOutcome): void {
  if (outcome.status !== 'inserted') {
    process.stderr.write(`crash-writer: unexpected outcome ${outcome.status}\n`);
    process.exit(2);
  }
  process.stdout.write(`${outcome.stored.sequence} ${outcome.stored.record.id}\n`);
}

async function writeUntilKilled(store: RecordStore): Promise<void> {
  const deadline = Date.now() + GIVE_UP_AFTER_MS;
  const actor = actorDid(`crash-${process.pid}`);
  let clock = 0;
  const next = () => {
    const i = clock++;
    return makePrepared({ thread: threadId(`crash-${i % 5}`), actor, clock: i, body: { i, pad: 'x'.repeat(i % 300) } });
  };
  const worker = async (index: number) => {
    while (Date.now() < deadline) {
      if (index % 3 === 0) {
        const outcomes = await store.appendMany([next(), next(), next()]);
        outcomes.forEach(acknowledge);
      } else {
        acknowledge(await store.append(next()));
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
}

const [driverModule, exportName, location] = process.argv.slice(2);
if (!driverModule || !exportName || !location) {
  process.stderr.write('usage: crash-writer <driverModule> <exportName> <location>\n');
  process.exit(2);
}
// The parent going away (without killing us) also ends the run.
process.on('disconnect', () => process.exit(0));
try {
  const store = await (await loadStoreOpener(driverModule, exportName))(location);
  await writeUntilKilled(store);
  await store.close();
  process.exit(0);
} catch (error) {
  process.stderr.write(`crash-writer: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
}
