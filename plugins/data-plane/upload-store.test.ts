import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { access, mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { refusalOf } from '../../core/errors/refusal-of.js';
import { parseContentRange } from './content-range.js';
import { chunkCount, missingChunks, rangesOf, UploadStore, type NewUpload, type UploadMeta } from './upload-store.js';

const CHUNK = 1024;
const TTL = 60_000;
const T0 = Date.UTC(2025, 0, 1);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const exists = (path: string) => access(path).then(() => true, () => false);

function declared(size: number, fields: Partial<NewUpload> = {}): NewUpload {
  return {
    namespace: 'default',
    path: '/upload.bin',
    size_bytes: size,
    chunk_size: CHUNK,
    content_type: 'application/octet-stream',
    precondition: null,
    content_hash: null,
    provenance: null,
    owner: 'did:sync:user:alice',
    ...fields,
  };
}

/** Chunk `index` of `content` (the byte range a client would PUT). */
function chunkOf(content: Buffer, index: number) {
  const start = index * CHUNK;
  const end = Math.min(start + CHUNK, content.length) - 1;
  return { range: parseContentRange(`bytes ${start}-${end}/${content.length}`, content.length, CHUNK), bytes: content.subarray(start, end + 1) };
}

/** A request body arriving in small pieces, as a socket delivers it. */
function body(bytes: Buffer, piece = 300): Readable {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += piece) pieces.push(bytes.subarray(at, at + piece));
  return Readable.from(pieces);
}

async function put(store: UploadStore, meta: UploadMeta, content: Buffer, index: number): Promise<UploadMeta> {
  const { range, bytes } = chunkOf(content, index);
  return store.writeChunk(meta, range, body(bytes));
}

describe('upload store', () => {
  let dir: string;
  let now: number;
  const clock = () => now;
  const newStore = (options: Partial<{ ttlMs: number; minFreeBytes: number }> = {}) => new UploadStore(dir, { ttlMs: TTL, minFreeBytes: 0, now: clock, ...options });
  let store: UploadStore;

  beforeEach(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'loom-uploads-')), 'uploads');
    now = T0;
    store = newStore();
    expect(await store.open()).to.deep.equal({ resumed: 0, removed: 0 });
  });
  afterEach(async () => rm(join(dir, '..'), { recursive: true, force: true }));

  it('create makes a folder with a sparse data file of the declared size and a meta file', async () => {
    const size = 8 << 20;
    const meta = await store.create(declared(size));
    expect(meta.upload_id).to.match(/^up_[0-9a-f]{32}$/);
    expect(meta).to.deep.include({ size_bytes: size, chunk_size: CHUNK, received: [], created_at: new Date(T0).toISOString(), expires_at: new Date(T0 + TTL).toISOString() });
    const data = await stat(store.dataPath(meta.upload_id));
    expect(data.size).to.equal(size);
    // Sparse: no blocks are allocated until chunks arrive.
    expect(data.blocks * 512).to.be.below(size / 8);
    const saved = JSON.parse(await readFile(join(dir, meta.upload_id, 'meta.json'), 'utf8')) as UploadMeta;
    expect(saved).to.deep.equal(meta);
    expect(store.get(meta.upload_id)).to.equal(meta);
    expect(store.reservedBytes('default')).to.equal(size);
    expect(store.reservedBytes('default', meta.upload_id)).to.equal(0);
    expect(store.reservedBytes('other')).to.equal(0);
    expect(store.openCount('default')).to.equal(1);
  });

  it('get answers undefined for unknown and malformed ids', () => {
    expect(store.get('up_' + '0'.repeat(32))).to.equal(undefined);
    expect(store.get('../etc')).to.equal(undefined);
    expect(store.get('')).to.equal(undefined);
  });

  it('chunks written in order: the digest is the SHA-256 of the content', async () => {
    const content = randomBytes(3 * CHUNK + 100);
    let meta = await store.create(declared(content.length));
    for (let i = 0; i < 4; i++) meta = await put(store, meta, content, i);
    expect(meta.received).to.deep.equal([0, 1, 2, 3]);
    expect(missingChunks(meta)).to.deep.equal([]);
    expect(await store.digest(meta)).to.equal(sha256(content));
    expect((await readFile(store.dataPath(meta.upload_id))).equals(content)).to.equal(true);
  });

  it('chunks written out of order, and several chunks in one PUT: the same digest', async () => {
    const content = randomBytes(5 * CHUNK + 1);
    let meta = await store.create(declared(content.length));
    meta = await put(store, meta, content, 5);
    meta = await put(store, meta, content, 2);
    expect(meta.received).to.deep.equal([2, 5]);
    expect(missingChunks(meta)).to.deep.equal([0, 1, 3, 4]);
    expect(rangesOf(meta, missingChunks(meta))).to.deep.equal([
      [0, 2 * CHUNK - 1],
      [3 * CHUNK, 5 * CHUNK - 1],
    ]);
    // Chunks 3 and 4 in one PUT.
    const range = parseContentRange(`bytes ${3 * CHUNK}-${5 * CHUNK - 1}/${content.length}`, content.length, CHUNK);
    meta = await store.writeChunk(meta, range, body(content.subarray(3 * CHUNK, 5 * CHUNK)));
    meta = await put(store, meta, content, 0);
    meta = await put(store, meta, content, 1);
    expect(meta.received).to.deep.equal([0, 1, 2, 3, 4, 5]);
    expect(await store.digest(meta)).to.equal(sha256(content));
  });

  it('a chunk sent again with other bytes after it was hashed: the digest describes the final bytes', async () => {
    const content = randomBytes(3 * CHUNK);
    let meta = await store.create(declared(content.length));
    const first = Buffer.from(content);
    first.fill(0x55, 0, CHUNK);
    meta = await put(store, meta, first, 0);
    meta = await put(store, meta, first, 1);
    meta = await put(store, meta, content, 0);
    meta = await put(store, meta, content, 2);
    expect(await store.digest(meta)).to.equal(sha256(content));
  });

  it('survives a restart: sessions resume from disk and the digest is recomputed from the data file', async () => {
    const content = randomBytes(4 * CHUNK - 7);
    let meta = await store.create(declared(content.length, { path: '/resumed.bin', content_hash: sha256(content), precondition: { expected_hash: null } }));
    meta = await put(store, meta, content, 0);
    meta = await put(store, meta, content, 2);
    const complete = await store.create(declared(content.length, { path: '/complete.bin' }));
    let done = complete;
    for (let i = 0; i < 4; i++) done = await put(store, done, content, i);

    const reopened = newStore();
    expect(await reopened.open()).to.deep.equal({ resumed: 2, removed: 0 });
    let resumed = reopened.get(meta.upload_id)!;
    expect(resumed).to.deep.equal(meta);
    expect(missingChunks(resumed)).to.deep.equal([1, 3]);
    resumed = await put(reopened, resumed, content, 3);
    resumed = await put(reopened, resumed, content, 1);
    expect(await reopened.digest(resumed)).to.equal(sha256(content));
    expect(await reopened.digest(reopened.get(complete.upload_id)!)).to.equal(sha256(content));
  });

  describe('a body that does not match its Content-Range: CONTENT_LENGTH_MISMATCH, the chunk not counted', () => {
    const content = randomBytes(3 * CHUNK);
    let meta: UploadMeta;
    beforeEach(async () => {
      meta = await store.create(declared(content.length));
      meta = await put(store, meta, content, 1);
    });

    for (const [name, pieces] of [
      ['one piece past the range', (extra: Buffer) => [extra]],
      ['the range, then more', (extra: Buffer) => [extra.subarray(0, CHUNK), extra.subarray(CHUNK)]],
      ['small pieces crossing the end', (extra: Buffer) => [extra.subarray(0, CHUNK - 3), extra.subarray(CHUNK - 3, CHUNK + 5), extra.subarray(CHUNK + 5)]],
    ] as const) {
      it(`longer (${name}): no byte is written past the range end`, async () => {
        const longer = Buffer.alloc(CHUNK + 50, 0xee);
        const error = await refusalOf(store.writeChunk(meta, chunkOf(content, 0).range, Readable.from(pieces(longer))));
        expect(error.code).to.equal('CONTENT_LENGTH_MISMATCH');
        expect(error.status).to.equal(400);
        const data = await readFile(store.dataPath(meta.upload_id));
        // The neighbouring chunk keeps its bytes.
        expect(data.subarray(CHUNK, 2 * CHUNK).equals(content.subarray(CHUNK, 2 * CHUNK))).to.equal(true);
        expect(data).to.have.length(content.length);
        expect(store.get(meta.upload_id)!.received).to.deep.equal([1]);
        // Sending it again correctly completes the upload.
        meta = await put(store, meta, content, 0);
        meta = await put(store, meta, content, 2);
        expect(await store.digest(meta)).to.equal(sha256(content));
      });
    }

    it('longer, with the overrun arriving after the first bytes reached the disk: nothing past the range end', async () => {
      const file = store.dataPath(meta.upload_id);
      const first = Buffer.alloc(CHUNK - 3, 0xee);
      async function* slowClient() {
        yield first;
        // Hold the rest back until the first piece is in the file, so the write stream is open and writing.
        for (let tries = 0; tries < 5000; tries++) {
          if ((await readFile(file)).subarray(0, first.length).equals(first)) break;
          await new Promise((resolve) => setImmediate(resolve));
        }
        yield Buffer.alloc(8, 0xee);
        yield Buffer.alloc(100, 0xee);
      }
      const error = await refusalOf(store.writeChunk(meta, chunkOf(content, 0).range, Readable.from(slowClient())));
      expect(error.code).to.equal('CONTENT_LENGTH_MISMATCH');
      const data = await readFile(file);
      expect(data.subarray(0, first.length).equals(first), 'the first piece did reach the disk').to.equal(true);
      expect(data.subarray(CHUNK, 2 * CHUNK).equals(content.subarray(CHUNK, 2 * CHUNK))).to.equal(true);
      expect(store.get(meta.upload_id)!.received).to.deep.equal([1]);
    });

    it('shorter: the chunk is not counted, in memory or on disk', async () => {
      const error = await refusalOf(store.writeChunk(meta, chunkOf(content, 0).range, body(content.subarray(0, CHUNK - 1))));
      expect(error.code).to.equal('CONTENT_LENGTH_MISMATCH');
      expect(store.get(meta.upload_id)!.received).to.deep.equal([1]);
      const reopened = newStore();
      await reopened.open();
      expect(reopened.get(meta.upload_id)!.received).to.deep.equal([1]);
      const empty = await refusalOf(store.writeChunk(meta, chunkOf(content, 2).range, Readable.from([])));
      expect(empty.code).to.equal('CONTENT_LENGTH_MISMATCH');
      expect(store.get(meta.upload_id)!.received).to.deep.equal([1]);
    });
  });

  describe('expiry (idle time to live, on the injected clock)', () => {
    it('get answers undefined once expires_at is reached', async () => {
      const meta = await store.create(declared(10));
      now = T0 + TTL - 1;
      expect(store.get(meta.upload_id)).to.equal(meta);
      now = T0 + TTL;
      expect(store.get(meta.upload_id)).to.equal(undefined);
      expect(store.openCount('default')).to.equal(0);
      // get() started the removal without waiting for it; settle it before the temp dir goes.
      await store.remove(meta.upload_id);
      expect(await exists(join(dir, meta.upload_id))).to.equal(false);
    });

    it('a chunk extends the session; sweep removes only idle sessions, with their folders', async () => {
      const content = randomBytes(2 * CHUNK);
      const idle = await store.create(declared(content.length, { path: '/idle' }));
      let busy = await store.create(declared(content.length, { path: '/busy' }));
      now = T0 + TTL / 2;
      busy = await put(store, busy, content, 0);
      expect(busy.expires_at).to.equal(new Date(T0 + TTL / 2 + TTL).toISOString());
      now = T0 + TTL;
      expect(await store.sweep()).to.equal(1);
      expect(await exists(join(dir, idle.upload_id))).to.equal(false);
      expect(await exists(join(dir, busy.upload_id, 'data'))).to.equal(true);
      expect(store.get(idle.upload_id)).to.equal(undefined);
      expect(store.get(busy.upload_id)).to.equal(busy);
      expect(await store.sweep()).to.equal(0);
      now = T0 + 2 * TTL;
      expect(await store.sweep()).to.equal(1);
      expect(await readdir(dir)).to.deep.equal([]);
    });

    it('open removes sessions that expired while the server was down', async () => {
      const meta = await store.create(declared(10));
      now = T0 + TTL + 1;
      const reopened = newStore();
      expect(await reopened.open()).to.deep.equal({ resumed: 0, removed: 1 });
      expect(reopened.get(meta.upload_id)).to.equal(undefined);
      expect(await exists(join(dir, meta.upload_id))).to.equal(false);
    });
  });

  it('open drops folders it cannot read: bad meta, a meta naming another upload, stray entries', async () => {
    const good = await store.create(declared(10, { path: '/good' }));
    const corrupt = await store.create(declared(10, { path: '/corrupt' }));
    const impostor = await store.create(declared(10, { path: '/impostor' }));
    const noMeta = `up_${'f'.repeat(32)}`;
    // A folder whose name is not an upload id is dropped even with a meta file naming it.
    const oddName = 'up_NOT-HEX';
    await mkdir(join(dir, oddName));
    await writeFile(join(dir, oddName, 'meta.json'), JSON.stringify({ ...good, upload_id: oddName }));
    await writeFile(join(dir, corrupt.upload_id, 'meta.json'), '{"upload_id": "up_');
    await writeFile(join(dir, impostor.upload_id, 'meta.json'), JSON.stringify({ ...impostor, upload_id: good.upload_id }));
    await mkdir(join(dir, noMeta));
    await mkdir(join(dir, 'not-an-upload'));
    await writeFile(join(dir, 'stray.txt'), 'x');

    const reopened = newStore();
    expect(await reopened.open()).to.deep.equal({ resumed: 1, removed: 6 });
    expect(reopened.get(good.upload_id)).to.deep.equal(good);
    expect(reopened.get(corrupt.upload_id)).to.equal(undefined);
    expect(reopened.get(impostor.upload_id)).to.equal(undefined);
    expect(await readdir(dir)).to.deep.equal([good.upload_id]);
  });

  it('refuses with STORAGE_FULL when the upload would eat into the reserved free space, creating nothing', async () => {
    const reserving = newStore({ minFreeBytes: Number.MAX_SAFE_INTEGER });
    await reserving.open();
    const error = await refusalOf(reserving.create(declared(10)));
    expect(error.code).to.equal('STORAGE_FULL');
    expect(error.status).to.equal(507);
    const huge = await refusalOf(store.create(declared(2 ** 52)));
    expect(huge.code).to.equal('STORAGE_FULL');
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('seal waits for the chunk in flight (counted when seal answers), then refuses further chunks until unsealed', async () => {
    const content = randomBytes(2 * CHUNK);
    const meta = await store.create(declared(content.length));
    const slow = new PassThrough();
    const writing = store.writeChunk(meta, chunkOf(content, 0).range, slow);
    slow.write(content.subarray(0, 10));
    const sealing = store.seal(meta.upload_id).then((sealed) => ({ sealed, received: [...meta.received] }));
    expect(await store.seal(meta.upload_id), 'a second seal (a racing completion)').to.equal(false);
    slow.end(content.subarray(10, CHUNK));
    expect(await sealing).to.deep.equal({ sealed: true, received: [0] });
    await writing;
    expect((await refusalOf(put(store, meta, content, 1))).code).to.equal('UPLOAD_NOT_FOUND');
    store.unseal(meta.upload_id);
    await put(store, meta, content, 1);
    expect(await store.digest(meta)).to.equal(sha256(content));
  });

  it('remove forgets the session and deletes its folder', async () => {
    const meta = await store.create(declared(10));
    await store.remove(meta.upload_id);
    expect(store.get(meta.upload_id)).to.equal(undefined);
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('chunkCount, rangesOf and missingChunks', () => {
    const shape = { size_bytes: 10, chunk_size: 4 };
    expect(chunkCount(shape)).to.equal(3);
    expect(chunkCount({ size_bytes: 8, chunk_size: 4 })).to.equal(2);
    expect(chunkCount({ size_bytes: 0, chunk_size: 4 })).to.equal(0);
    expect(rangesOf(shape, [0, 1, 2])).to.deep.equal([[0, 9]]);
    expect(rangesOf(shape, [0, 2])).to.deep.equal([
      [0, 3],
      [8, 9],
    ]);
    expect(rangesOf(shape, [])).to.deep.equal([]);
    const meta = { ...declared(10, { chunk_size: 4 }), upload_id: 'up_x', created_at: '', expires_at: '', received: [1] } as UploadMeta;
    expect(missingChunks(meta)).to.deep.equal([0, 2]);
  });
});

// Guards the sparse-file assertion above: on this filesystem written bytes do allocate blocks.
describe('upload store: filesystem sanity', () => {
  it('a file with written bytes allocates blocks (so "sparse" is observable here)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-sparse-'));
    try {
      const file = join(dir, 'f');
      const handle = await open(file, 'w');
      await handle.truncate(1 << 20);
      await handle.write(randomBytes(1 << 19), 0, 1 << 19, 0);
      await handle.sync();
      await handle.close();
      expect((await stat(file)).blocks * 512).to.be.at.least(1 << 19);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
