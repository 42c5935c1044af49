import { expect } from 'chai';
import { appendFile, mkdtemp, readFile, rm, stat, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TopK } from './top-k.js';
import { dot, unit, VectorStore, type SlotMeta } from './vector-store.js';

const meta = (sequence: number, thread = 'th_a'): SlotMeta => ({ sequence, id: sequence.toString(16).padStart(64, '0'), thread, actor: 'did:sync:user:a', kind: null, clock: sequence });

describe('VectorStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-vectors-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps unit vectors, the frontier and failures across a reopen, and skips sequences it holds', async () => {
    const store = await VectorStore.open(dir, 'ollama', 'm');
    await store.append([{ meta: meta(1), vector: [3, 4] }, { meta: meta(2, 'th_b'), vector: [0, 2] }], 5, [4]);
    await store.append([{ meta: meta(2), vector: [9, 9] }], 6);
    expect(store.size).to.equal(2);
    const again = await VectorStore.open(dir, 'ollama', 'm');
    expect(again.size).to.equal(2);
    expect(again.frontier).to.equal(6);
    expect(again.failed).to.deep.equal([4]);
    expect(again.model).to.deep.equal({ kind: 'ollama', model: 'm', dims: 2 });
    expect([...again.vectors.subarray(0, 4)].map((x) => Math.round(x * 1000) / 1000)).to.deep.equal([0.6, 0.8, 0, 1]);
    expect(again.slotsOfThread('th_b')).to.deep.equal([1]);
    expect(again.meta(0)).to.deep.equal(meta(1));
  });

  it('drops a torn tail left by a crash, so those records are embedded again', async () => {
    const store = await VectorStore.open(dir, 'ollama', 'm');
    await store.append([{ meta: meta(1), vector: [1, 0] }, { meta: meta(2), vector: [0, 1] }], 2);
    // A crash mid-append: half a vector entry and half a line.
    await appendFile(join(dir, 'vectors.f32'), Buffer.alloc(7));
    await appendFile(join(dir, 'slots.ndjson'), '{"sequence":3,');
    const reopened = await VectorStore.open(dir, 'ollama', 'm');
    expect(reopened.size).to.equal(2);
    expect((await stat(join(dir, 'vectors.f32'))).size).to.equal(2 * (8 + 8));
    expect(await readFile(join(dir, 'slots.ndjson'), 'utf8')).to.match(/\n$/);
    // A vector file shorter than the slot lines: the slots without a vector go.
    await truncate(join(dir, 'vectors.f32'), 16);
    expect((await VectorStore.open(dir, 'ollama', 'm')).size).to.equal(1);
  });

  it('starts afresh when the directory holds another model', async () => {
    const store = await VectorStore.open(dir, 'ollama', 'a');
    await store.append([{ meta: meta(1), vector: [1, 0] }], 1);
    const other = await VectorStore.open(dir, 'ollama', 'b');
    expect(other.size).to.equal(0);
    expect(other.frontier).to.equal(0);
  });

  it('refuses a vector whose dimensions differ from the model’s', async () => {
    const store = await VectorStore.open(null, 'ollama', 'm');
    await store.append([{ meta: meta(1), vector: [1, 0] }], 1);
    const error = await store.append([{ meta: meta(2), vector: [1, 0, 0] }], 2).then(() => null, (e: unknown) => e);
    expect((error as Error).message).to.contain('3 dimensions where its earlier vectors have 2');
  });
});

describe('dot, unit and TopK', () => {
  it('dot equals the plain sum at every length (the four-lane loop and its remainder)', () => {
    for (const dims of [1, 3, 4, 5, 17, 384]) {
      const a = Float32Array.from({ length: dims * 2 }, (_, i) => Math.sin(i));
      const b = Float32Array.from({ length: dims }, (_, i) => Math.cos(i));
      let plain = 0;
      for (let i = 0; i < dims; i++) plain += a[dims + i]! * b[i]!;
      expect(dot(a, dims, b, 0, dims)).to.be.closeTo(plain, 1e-9);
    }
    expect([...unit([0, 0])]).to.deep.equal([0, 0]);
  });

  it('TopK keeps the n best, best first, ties by the lower slot', () => {
    const scores = Array.from({ length: 500 }, (_, i) => Math.round(Math.sin(i * 7.3) * 50));
    const top = new TopK(25);
    scores.forEach((score, slot) => top.offer(slot, score));
    const expected = scores.map((score, slot) => ({ slot, score })).sort((a, b) => b.score - a.score || a.slot - b.slot);
    const got = top.sorted();
    expect(got.map((x) => x.score)).to.deep.equal(expected.slice(0, 25).map((x) => x.score));
  });
});
