/**
 * The blob-store compliance suite: every blob driver's test file calls
 * `runBlobStoreCompliance` once (storage/contract/blob-store.ts says what it
 * holds a driver to), then adds its own tests.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { expect } from 'chai';
import type { BlobStore } from '../contract/blob-store.js';

export interface BlobStoreHarness {
  readonly store: BlobStore;
  cleanup(): Promise<void>;
}

export interface BlobStoreComplianceOptions {
  readonly name: string;
  /** A fresh, empty, opened store. */
  readonly factory: () => Promise<BlobStoreHarness>;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** `bytes` as a stream of uneven pieces, the way a socket delivers them. */
function pieces(bytes: Buffer, size = 7919): Readable {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return Readable.from(out);
}

async function all(store: BlobStore): Promise<Array<{ hash: string; size: number }>> {
  const out: Array<{ hash: string; size: number }> = [];
  for await (const entry of store.list()) out.push({ hash: entry.hash, size: entry.size });
  return out;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

export function runBlobStoreCompliance(options: BlobStoreComplianceOptions): void {
  describe(`${options.name}: blob store compliance`, function () {
    this.timeout(60_000);
    let harness: BlobStoreHarness;
    let store: BlobStore;
    beforeEach(async () => {
      harness = await options.factory();
      store = harness.store;
    });
    afterEach(async () => harness.cleanup());

    it('put streams content in and answers its SHA-256 and size; stat and read give it back', async () => {
      const content = randomBytes(600_000);
      const put = await store.put(pieces(content));
      expect(put).to.deep.equal({ hash: sha256(content), size: content.length, outcome: 'stored' });
      expect(await store.stat(put.hash)).to.equal(content.length);
      expect((await buffer(store.read(put.hash, 0, content.length - 1))).equals(content)).to.equal(true);
      expect(await all(store)).to.deep.equal([{ hash: put.hash, size: content.length }]);
      expect(await store.usage()).to.deep.equal({ blobs: 1, bytes: content.length });
    });

    it('keeps identical content once; list is in hash order; the empty blob is a blob', async () => {
      const content = randomBytes(1000);
      const first = await store.put(pieces(content, 100));
      const second = await store.put(pieces(content, 333));
      expect(second).to.deep.equal({ ...first, outcome: 'deduplicated' });
      const empty = await store.put(Readable.from([]));
      expect(empty).to.deep.equal({ hash: sha256(Buffer.alloc(0)), size: 0, outcome: 'stored' });
      expect(await store.stat(empty.hash)).to.equal(0);
      const listed = await all(store);
      expect(listed.map((entry) => entry.hash)).to.deep.equal([first.hash, empty.hash].sort());
      expect(await store.usage()).to.deep.equal({ blobs: 2, bytes: 1000 });
    });

    it('refuses content that does not hash to the expected SHA-256, keeping nothing', async () => {
      const content = randomBytes(300_000);
      const error = await failure(store.put(pieces(content), 'ab'.repeat(32)));
      expect((error as { code?: string }).code).to.equal('CONTENT_HASH_MISMATCH');
      expect(await store.stat(sha256(content))).to.equal(null);
      expect(await all(store)).to.deep.equal([]);
      expect(await store.usage()).to.deep.equal({ blobs: 0, bytes: 0 });
      const accepted = await store.put(pieces(content), sha256(content));
      expect(accepted.outcome).to.equal('stored');
    });

    it('a source that fails mid-stream rejects the put with its error and keeps nothing', async () => {
      const failing = new Readable({
        read() {
          this.push(randomBytes(300_000));
          this.destroy(new Error('client went away'));
        },
      });
      const error = await failure(store.put(failing));
      expect((error as Error).message).to.equal('client went away');
      expect(await all(store)).to.deep.equal([]);
    });

    it('reads inclusive byte ranges, across chunk boundaries, streamed', async () => {
      const content = randomBytes(3 * 262_144 + 7);
      const { hash } = await store.put(pieces(content, 65_536));
      const ranges: Array<[number, number]> = [[0, 0], [2, 5], [262_143, 262_144], [262_100, 3 * 262_144 + 6], [3 * 262_144, 3 * 262_144 + 6], [100_000, 700_000], [content.length - 1, content.length - 1]];
      for (const [start, end] of ranges) {
        const read = await buffer(store.read(hash, start, end));
        expect(read.equals(content.subarray(start, end + 1)), `${start}-${end}`).to.equal(true);
      }
    });

    it('stat answers null and read fails for content it does not hold', async () => {
      const absent = 'cd'.repeat(32);
      expect(await store.stat(absent)).to.equal(null);
      expect(await failure(buffer(store.read(absent, 0, 10)))).to.be.instanceOf(Error);
    });

    it('remove deletes only when collectable() agrees and nobody holds the content', async () => {
      const content = randomBytes(400_000);
      const { hash } = await store.put(pieces(content));
      expect(await store.remove(hash, async () => false)).to.equal(null);
      expect(await store.stat(hash)).to.equal(content.length);

      const release = await store.hold(hash);
      expect(await store.remove(hash, async () => true)).to.equal(null);
      expect(await store.stat(hash)).to.equal(content.length);
      await release();
      await release();
      expect(await store.remove(hash, async () => true)).to.equal(content.length);
      expect(await store.stat(hash)).to.equal(null);
      expect(await all(store)).to.deep.equal([]);
      expect(await store.remove(hash, async () => true), 'already gone').to.equal(null);
    });

    it('two holds keep content until both are released', async () => {
      const { hash } = await store.put(Readable.from([Buffer.from('held twice')]));
      const one = await store.hold(hash);
      const two = await store.hold(hash);
      await one();
      expect(await store.remove(hash, async () => true)).to.equal(null);
      await two();
      expect(await store.remove(hash, async () => true)).to.equal(10);
    });

    it('content held before it is stored stays; content a hold waits for while it is removed can be stored again', async () => {
      const content = randomBytes(5000);
      const hash = sha256(content);
      const release = await store.hold(hash);
      await store.put(pieces(content, 1000), hash);
      expect(await store.remove(hash, async () => true)).to.equal(null);
      await release();

      // A hold asked for while a removal is deciding: afterwards the content is either still there or can be put back.
      let holding: Promise<() => Promise<void>> | null = null;
      const removal = store.remove(hash, async () => {
        holding ??= store.hold(hash);
        await new Promise((resolve) => setTimeout(resolve, 50));
        return true;
      });
      expect(await removal).to.equal(5000);
      const late = await holding!;
      const again = await store.put(pieces(content, 1000), hash);
      expect(again.outcome).to.equal('stored');
      expect(await store.remove(hash, async () => true)).to.equal(null);
      await late();
    });

    it('a blob too large to hold in memory streams in and out in bounded pieces', async () => {
      const total = 8 << 20;
      const hasher = createHash('sha256');
      let sent = 0;
      const source = new Readable({
        read() {
          if (sent >= total) return void this.push(null);
          const piece = Buffer.alloc(65_536, sent / 65_536);
          hasher.update(piece);
          sent += piece.length;
          this.push(piece);
        },
      });
      const { hash, size } = await store.put(source);
      expect(hash).to.equal(hasher.digest('hex'));
      expect(size).to.equal(total);
      let largest = 0;
      const back = createHash('sha256');
      for await (const piece of store.read(hash, 0, total - 1)) {
        largest = Math.max(largest, (piece as Buffer).length);
        back.update(piece as Buffer);
      }
      expect(back.digest('hex')).to.equal(hash);
      expect(largest).to.be.at.most(2 << 20);
    });
  });
}
