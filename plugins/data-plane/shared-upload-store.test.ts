/**
 * Seals of shared upload sessions are leases: a completion holds the upload
 * while its server renews the seal, and when that server dies mid-completion
 * the seal lapses, so another server takes the completion over instead of
 * answering "being completed" until the session's TTL. Two stores over one
 * in-memory slot table stand for two servers of one log.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { refusalOf } from '../../core/errors/refusal-of.js';
import { parseContentRange } from './content-range.js';
import { FilesystemBlobStore } from './filesystem-blob-store.js';
import { SharedUploadStore, type SharedSlots } from './shared-upload-store.js';
import type { NewUpload } from './upload-sessions.js';

const LEASE = 60_000;

/** The shared store's slots and locks, in memory. */
function memorySlots(): SharedSlots {
  const slots = new Map<string, string>();
  let turn: Promise<unknown> = Promise.resolve();
  return {
    readSlot: async (name) => slots.get(name) ?? null,
    writeSlot: async (name, value) => {
      if (value === null) slots.delete(name);
      else slots.set(name, value);
    },
    withLock: <T>(_key: string, work: () => Promise<T>) => {
      const run = turn.then(work, work);
      turn = run.catch(() => undefined);
      return run;
    },
  };
}

const upload = (size: number): NewUpload => ({
  namespace: 'default',
  path: '/lease.bin',
  size_bytes: size,
  chunk_size: 1024,
  content_type: 'application/octet-stream',
  precondition: null,
  content_hash: null,
  provenance: null,
  owner: 'did:sync:user:alice',
});

describe('SharedUploadStore: a seal is a lease', () => {
  let dir: string;
  let clock: number;
  let one: SharedUploadStore;
  let two: SharedUploadStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-shared-upload-'));
    clock = Date.UTC(2026, 0, 1);
    const slots = memorySlots();
    const blobs = new FilesystemBlobStore(join(dir, 'blobs'));
    await blobs.open();
    const options = { ttlMs: 24 * 3_600_000, referenced: async () => false, now: () => clock, sealLeaseMs: LEASE };
    one = new SharedUploadStore(slots, blobs, options);
    two = new SharedUploadStore(slots, blobs, options);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('holds against a second completion and a late chunk while it is renewed, then lapses when its server is gone', async () => {
    const bytes = Buffer.alloc(1500, 7);
    const meta = await one.create(upload(bytes.length));
    await one.writeChunk(meta, parseContentRange(`bytes 0-1023/${bytes.length}`, bytes.length, 1024), Readable.from([bytes.subarray(0, 1024)]));
    expect(await one.seal(meta.upload_id), 'server one seals').to.equal(true);
    try {
      await two.refresh();
      expect(await two.seal(meta.upload_id), 'a second completion, through server two, while the seal holds').to.equal(false);
      const late = await refusalOf(two.writeChunk(meta, parseContentRange(`bytes 1024-1499/${bytes.length}`, bytes.length, 1024), Readable.from([bytes.subarray(1024)])));
      expect(late.code, 'a chunk after the seal').to.equal('UPLOAD_NOT_FOUND');

      // Server one dies mid-completion: nothing renews its seal, and after the lease server two takes over.
      clock += LEASE - 1;
      expect(await two.seal(meta.upload_id), 'one ms before the lease ends').to.equal(false);
      clock += 2;
      expect(await two.seal(meta.upload_id), 'after the lease').to.equal(true);
      await two.unseal(meta.upload_id);
      // Unsealed, the session takes chunks again (the completion was refused, say, for a missing chunk).
      await two.writeChunk(meta, parseContentRange(`bytes 1024-1499/${bytes.length}`, bytes.length, 1024), Readable.from([bytes.subarray(1024)]));
      expect(two.get(meta.upload_id)?.received).to.deep.equal([0, 1]);
    } finally {
      await one.unseal(meta.upload_id);
    }
  });

  it('the server that holds a seal renews it, so a long completion is not taken over', async () => {
    const blobs = new FilesystemBlobStore(join(dir, 'renew'));
    await blobs.open();
    const renewing = new SharedUploadStore(memorySlots(), blobs, { ttlMs: 3_600_000, referenced: async () => false, sealLeaseMs: 90 });
    const meta = await renewing.create(upload(10));
    expect(await renewing.seal(meta.upload_id)).to.equal(true);
    try {
      // Three leases later the seal still holds: it was renewed every 30 ms.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await renewing.seal(meta.upload_id)).to.equal(false);
    } finally {
      await renewing.unseal(meta.upload_id);
    }
    expect(await renewing.seal(meta.upload_id), 'free again once unsealed').to.equal(true);
    await renewing.unseal(meta.upload_id);
  });
});
