import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BlobCollector } from './blob-collector.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';
import type { DataState } from './data-fold.js';
import { emptyTree } from './namespace-tree.js';

const HOUR = 3600_000;

const hashes = async (store: FilesystemBlobStore) => {
  const out: string[] = [];
  for await (const { hash } of store.list()) out.push(hash);
  return out;
};

/** A data state whose namespaces hold exactly `held` (hash → namespaces). */
function stateHolding(held: Record<string, string[]>): DataState {
  const namespaces = new Map<string, ReturnType<typeof emptyTree>>();
  for (const [hash, names] of Object.entries(held)) {
    for (const name of names) {
      if (!namespaces.has(name)) namespaces.set(name, emptyTree());
      namespaces.get(name)!.contents.set(hash, { size: 1, refs: 1 });
    }
  }
  return { namespaces, warnings: [] };
}

describe('blob collector', () => {
  let dir: string;
  let blobs: FilesystemBlobStore;
  let now: number;
  let state: DataState;
  const collector = (graceSeconds = 24 * 3600) =>
    new BlobCollector({ blobs, dataState: () => state, stateFile: join(dir, 'blob-gc.json'), graceSeconds, intervalSeconds: 3600, now: () => now });
  const put = async (bytes: Buffer) => (await blobs.put(Readable.from([bytes]))).hash;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-gc-'));
    blobs = new FilesystemBlobStore(join(dir, 'blobs'));
    await blobs.open();
    now = Date.parse('2026-11-27T00:00:00Z');
    state = stateHolding({});
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('collects content unreferenced for the grace period, counted from the first run that found it so, and never content a file of any namespace holds', async () => {
    const gone = await put(randomBytes(5000));
    const kept = await put(randomBytes(3000));
    state = stateHolding({ [kept]: ['team'] });
    const gc = collector();
    await gc.open();
    expect(await gc.usage()).to.include({ blobs: 2, stored_bytes: 8000, live_bytes: 3000, reclaimable_bytes: 5000, reclaimable_blobs: 1 });

    const first = await gc.collect();
    expect(first).to.include({ collected_blobs: 0, freed_bytes: 0, reclaimable_bytes: 5000 });
    expect(first.kept).to.deep.equal({ live: 1, within_grace: 1, held: 0 });
    now += 23 * HOUR;
    expect((await gc.collect()).collected_blobs).to.equal(0);
    now += 1 * HOUR;
    const due = await gc.collect();
    expect(due).to.include({ collected_blobs: 1, freed_bytes: 5000, reclaimable_bytes: 0 });
    expect(await blobs.stat(gone)).to.equal(null);
    expect(await blobs.stat(kept)).to.equal(3000);
    expect(await hashes(blobs)).to.deep.equal([kept]);
    // Grace 0 still never takes what a file holds.
    expect((await gc.collect(0)).collected_blobs).to.equal(0);
    expect(await blobs.stat(kept)).to.equal(3000);
    expect((await gc.usage()).last_collection).to.include({ collected_blobs: 0, grace_seconds: 0 });
  });

  it('content referenced again in between starts its grace over; a restart keeps the time already served', async () => {
    const hash = await put(randomBytes(100));
    let gc = collector();
    await gc.open();
    await gc.collect();
    now += 20 * HOUR;
    state = stateHolding({ [hash]: ['default'] });
    await gc.collect();
    state = stateHolding({});
    now += 1 * HOUR;
    await gc.collect(); // unreferenced again: its grace starts now
    now += 23 * HOUR;
    expect((await gc.collect()).collected_blobs).to.equal(0);

    // A new collector (a restart) reads when the grace started.
    gc = collector();
    await gc.open();
    now += 1 * HOUR;
    expect((await gc.collect()).collected_blobs).to.equal(1);
  });

  it('an unreadable state file only starts every grace again', async () => {
    const hash = await put(randomBytes(100));
    await writeFile(join(dir, 'blob-gc.json'), '{"version":1,"unreferen');
    const gc = collector();
    await gc.open();
    expect((await gc.collect()).collected_blobs).to.equal(0);
    now += 24 * HOUR;
    expect((await gc.collect()).collected_blobs).to.equal(1);
    expect(await blobs.stat(hash)).to.equal(null);
  });

  it('a record naming the content written between the scan and the unlink keeps its bytes', async () => {
    const hash = await put(randomBytes(100));
    let reads = 0;
    // The scan sees no reference; every later look (the check in the hash's turn) sees the new record.
    const gc = new BlobCollector({
      blobs,
      dataState: () => (reads++ === 0 ? stateHolding({}) : stateHolding({ [hash]: ['default'] })),
      stateFile: join(dir, 'blob-gc.json'),
      graceSeconds: 0,
      intervalSeconds: 3600,
      now: () => now,
    });
    const run = await gc.collect(0);
    expect(run.collected_blobs).to.equal(0);
    expect(run.kept.live).to.equal(1);
    expect(await blobs.stat(hash)).to.equal(100);
  });

  it('content a completing upload holds is kept, and an adopt racing the unlink leaves the bytes in place', async () => {
    const bytes = randomBytes(4096);
    const hash = await put(bytes);
    const gc = collector(0);
    // A completion holds the hash before adopting the upload's copy (found already stored: deduplicated).
    for (let round = 0; round < 20; round++) {
      const release = await blobs.hold(hash);
      const upload = join(dir, `upload-${round}`);
      await writeFile(upload, bytes);
      const [run, adopted] = await Promise.all([gc.collect(0), blobs.adopt(upload, hash)]);
      expect(run.collected_blobs).to.equal(0);
      expect(['stored', 'deduplicated']).to.include(adopted);
      expect(await blobs.stat(hash), `round ${round}`).to.equal(4096);
      await release();
    }
    expect((await gc.collect(0)).kept.held).to.equal(0);
    expect(await blobs.stat(hash)).to.equal(null);

    // Without a hold, an adopt and an unlink of one hash take turns: whichever runs second decides, never a half state.
    await writeFile(join(dir, 'again'), bytes);
    const [, outcome] = await Promise.all([gc.collect(0), blobs.adopt(join(dir, 'again'), hash)]);
    expect(outcome).to.equal('stored');
    const size = await blobs.stat(hash);
    expect((await blobs.indexed()).get(hash)).to.equal(size ?? undefined);
  });

  it('runs one at a time: an operator run waits for the interval run in flight', async () => {
    for (let i = 0; i < 5; i++) await put(randomBytes(10 + i));
    const gc = collector(0);
    const runs = await Promise.all([gc.collect(0), gc.collect(0), gc.collect(0)]);
    expect(runs.map((r) => r.collected_blobs)).to.deep.equal([5, 0, 0]);
    expect(await hashes(blobs)).to.deep.equal([]);
  });
});
