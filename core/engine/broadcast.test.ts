import { ENGINE_WRITE } from './ingest.js';
import { expect } from 'chai';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { rec, startTestEngine, TH_A, TH_B, type TestEngine } from '../../test/helpers/test-engine.js';

async function take(iterator: AsyncIterator<StoredRecord>, n: number): Promise<StoredRecord[]> {
  const out: StoredRecord[] = [];
  while (out.length < n) {
    const next = await iterator.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('record bus', () => {
  let t: TestEngine;
  beforeEach(async () => (t = await startTestEngine()));
  afterEach(async () => t.cleanup());

  it('delivers every record in sequence order to a live subscriber', async () => {
    const sub = t.engine.bus.subscribe();
    await Promise.all(Array.from({ length: 20 }, (_, i) => t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: i }))));
    const got = await take(sub, 20);
    expect(got.map((s) => s.sequence)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    sub.close();
  });

  it('a slow subscriber never blocks ingest and never misses or repeats a record', async () => {
    const sub = t.engine.bus.subscribe({ bufferSize: 8 });
    // Ingest far more than the buffer holds while nobody reads.
    for (let batch = 0; batch < 10; batch++) {
      await Promise.all(Array.from({ length: 30 }, (_, i) => t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: batch * 30 + i }))));
    }
    const got = await take(sub, 300);
    expect(got.map((s) => s.sequence)).to.deep.equal(Array.from({ length: 300 }, (_, i) => i + 1));
    // And it goes live again afterwards.
    await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: 1000 }));
    const [next] = await take(sub, 1);
    expect(next!.sequence).to.equal(301);
    sub.close();
  });

  it('keeps delivering while a subscriber catches up concurrently with new ingests', async () => {
    const sub = t.engine.bus.subscribe({ bufferSize: 4 });
    const writer = (async () => {
      for (let i = 0; i < 200; i++) await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: i }));
    })();
    const got: number[] = [];
    for await (const stored of sub) {
      got.push(stored.sequence);
      if (got.length % 7 === 0) await new Promise((r) => setTimeout(r, 2));
      if (got.length === 200) break;
    }
    await writer;
    expect(got).to.deep.equal(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('replays from the store when subscribing in the past, with a filter', async () => {
    for (let i = 0; i < 10; i++) await t.engine.ingestor.ingest(ENGINE_WRITE, rec({ clock: i, thread: i % 2 ? TH_A : TH_B }));
    const sub = t.engine.bus.subscribe({ after: 3, filter: (s) => s.record.thread === TH_A });
    const got = await take(sub, 3);
    expect(got.map((s) => s.sequence)).to.deep.equal([4, 6, 8]);
    sub.close();
    expect((await sub.next()).done).to.equal(true);
  });
});
