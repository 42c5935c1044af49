import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { access, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { runBlobStoreCompliance } from '../../storage/compliance/index.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const exists = (path: string) => access(path).then(() => true, () => false);

runBlobStoreCompliance({
  name: 'FilesystemBlobStore',
  async factory() {
    const dir = await mkdtemp(join(tmpdir(), 'loom-blobs-compliance-'));
    const store = new FilesystemBlobStore(join(dir, 'blobs'));
    await store.open();
    return { store, cleanup: () => rm(dir, { recursive: true, force: true }) };
  },
});

const hashes = async (store: FilesystemBlobStore) => {
  const out: string[] = [];
  for await (const { hash } of store.list()) out.push(hash);
  return out;
};

describe('filesystem blob store', () => {
  let dir: string;
  let blobs: FilesystemBlobStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-blobs-'));
    blobs = new FilesystemBlobStore(join(dir, 'blobs'));
    await blobs.open();
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('put stores a stream under <dir>/<first two hex>/<sha256> and answers its hash and size', async () => {
    const content = randomBytes(70_000);
    const { hash, size } = await blobs.put(Readable.from([content.subarray(0, 1000), content.subarray(1000)]));
    expect(hash).to.equal(sha256(content));
    expect(size).to.equal(content.length);
    const file = join(dir, 'blobs', hash.slice(0, 2), hash);
    expect(blobs.pathOf(hash)).to.equal(file);
    expect((await readFile(file)).equals(content)).to.equal(true);
    expect(await blobs.stat(hash)).to.equal(content.length);
    expect(await hashes(blobs)).to.deep.equal([hash]);
    expect(await readdir(join(dir, 'blobs', 'tmp'))).to.deep.equal([]);
  });

  it('stores identical content once', async () => {
    const content = Buffer.from('the same bytes twice');
    const first = await blobs.put(Readable.from([content]));
    const second = await blobs.put(Readable.from([content.subarray(0, 5), content.subarray(5)]));
    expect(second).to.deep.equal({ ...first, outcome: 'deduplicated' });
    expect(await hashes(blobs)).to.deep.equal([first.hash]);
    expect(await readdir(join(dir, 'blobs', first.hash.slice(0, 2)))).to.deep.equal([first.hash]);
    expect(await readdir(join(dir, 'blobs', 'tmp'))).to.deep.equal([]);
    const other = await blobs.put(Readable.from([Buffer.from('other bytes')]));
    expect(other.hash).to.not.equal(first.hash);
    expect(await hashes(blobs)).to.have.members([first.hash, other.hash]);
  });

  it('stores the empty blob', async () => {
    const { hash, size } = await blobs.put(Readable.from([]));
    expect(hash).to.equal(sha256(Buffer.alloc(0)));
    expect(size).to.equal(0);
    expect(await blobs.stat(hash)).to.equal(0);
  });

  it('adopt renames a complete file into place, and drops a second copy of a held blob', async () => {
    const content = randomBytes(5000);
    const hash = sha256(content);
    const staged = join(dir, 'upload-data');
    await writeFile(staged, content);
    expect(await blobs.adopt(staged, hash)).to.equal('stored');
    expect(await exists(staged)).to.equal(false);
    expect((await readFile(join(dir, 'blobs', hash.slice(0, 2), hash))).equals(content)).to.equal(true);

    const again = join(dir, 'upload-data-2');
    await writeFile(again, content);
    expect(await blobs.adopt(again, hash)).to.equal('deduplicated');
    expect(await exists(again)).to.equal(false);
    expect(await hashes(blobs)).to.deep.equal([hash]);
    expect((await readFile(blobs.pathOf(hash))).equals(content)).to.equal(true);
  });

  it('reads inclusive byte ranges', async () => {
    const content = Buffer.from('0123456789abcdef');
    const { hash } = await blobs.put(Readable.from([content]));
    expect(await text(blobs.read(hash, 0, 15))).to.equal('0123456789abcdef');
    expect(await text(blobs.read(hash, 2, 5))).to.equal('2345');
    expect(await text(blobs.read(hash, 15, 15))).to.equal('f');
    expect(await text(blobs.read(hash, 10, 15))).to.equal('abcdef');
    const large = randomBytes(3 << 20);
    const big = await blobs.put(Readable.from([large]));
    expect((await buffer(blobs.read(big.hash, (2 << 20) + 7, (3 << 20) - 2))).equals(large.subarray((2 << 20) + 7, (3 << 20) - 1))).to.equal(true);
  });

  it('stat answers null for a blob it does not hold; pathOf refuses what is not a SHA-256 hex digest', async () => {
    expect(await blobs.stat('0'.repeat(64))).to.equal(null);
    for (const bad of ['', 'AB'.repeat(32), 'ab'.repeat(31), '../'.repeat(21) + 'a', 'g'.repeat(64)]) {
      expect(() => blobs.pathOf(bad), bad).to.throw(/not a SHA-256 hex digest/);
    }
  });

  it('open() removes the temporary files a crash left behind and keeps the blobs', async () => {
    const { hash } = await blobs.put(Readable.from([Buffer.from('kept')]));
    await writeFile(join(dir, 'blobs', 'tmp', 'half-written'), 'partial');
    await writeFile(join(dir, 'blobs', 'tmp', 'another'), 'partial');
    const reopened = new FilesystemBlobStore(join(dir, 'blobs'));
    await reopened.open();
    expect(await readdir(join(dir, 'blobs', 'tmp'))).to.deep.equal([]);
    expect(await hashes(reopened)).to.deep.equal([hash]);
    expect(await text(reopened.read(hash, 0, 3))).to.equal('kept');
  });

  it('a failed put leaves nothing behind', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.from('some bytes'));
        this.destroy(new Error('client went away'));
      },
    });
    let failure: unknown;
    await blobs.put(failing).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('client went away');
    expect(await readdir(join(dir, 'blobs', 'tmp'))).to.deep.equal([]);
    expect(await hashes(blobs)).to.deep.equal([]);
  });
});
