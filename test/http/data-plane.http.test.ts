/**
 * The data plane over real loopback HTTP, with 64 KiB chunks and files of a
 * few chunks: the write → read round trip (ranges, ETags, deduplication,
 * usage), every refusal of bad input the issue lists, preconditions and
 * racing writers, forged node records, uploads that survive a restart or
 * expire, quotas and a full disk, and signed URLs.
 */
import { expect } from 'chai';
import { existsSync, statSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { dataThreadId } from '../../plugins/data-plane/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import {
  completeWrite,
  expectRefusal,
  initWrite,
  openAndSend,
  putChunk,
  putChunkOf,
  readBlob,
  setQuota,
  sha256,
  testBytes,
  uploadFile,
  uploadStatus,
} from '../helpers/data-plane.js';
import { get, postJson, postRaw, postRecord, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

const CHUNK = 64 * 1024;
const EMPTY_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const UNKNOWN_UPLOAD = `up_${'0'.repeat(32)}`;
/** Query-string encoding; a path that is not well-formed Unicode goes as its UTF-8 (U+FFFD for the lone surrogate). */
const q = (text: string) => encodeURIComponent(text.isWellFormed() ? text : text.toWellFormed());

const uploadsDir = (server: StartedServer) => join(server.dataDir, 'plugins', 'data-plane', 'uploads');
const usage = async (server: StartedServer, headers: Record<string, string> = {}) => {
  const answer = await get(server.url, '/v1/data/usage', headers);
  expect(answer.status, answer.text).to.equal(200);
  return answer.json;
};

/**
 * PUTs `body` in two parts: the first `split` bytes, then (once they are
 * seen in the upload's data file, so the server has written them) the rest.
 */
async function putInTwoParts(base: string, uploadId: string, contentRange: string, body: Buffer, split: number, dataFile: string): Promise<HttpAnswer> {
  const target = new URL(`/v1/blobs/upload/${uploadId}`, base);
  let answered!: (answer: HttpAnswer) => void;
  let failed!: (error: Error) => void;
  const answer = new Promise<HttpAnswer>((resolve, reject) => ((answered = resolve), (failed = reject)));
  const req = httpRequest(target, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-range': contentRange, 'content-length': String(body.length) } }, (res) => {
    const parts: Buffer[] = [];
    res.on('data', (part: Buffer) => parts.push(part));
    res.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      answered({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), text, json });
    });
  });
  req.on('error', failed);
  req.write(body.subarray(0, split));
  const probe = Buffer.alloc(4096);
  const expected = body.subarray(0, probe.length);
  await eventually(async () => {
    const file = await open(dataFile, 'r');
    try {
      await file.read(probe, 0, probe.length, 0);
    } finally {
      await file.close();
    }
    return probe.equals(expected);
  }, 'the first part of the body to reach the data file');
  req.end(body.subarray(split));
  return answer;
}

/** Waits (bounded) until `condition` holds, for effects the server does not announce (bytes on disk, a folder removed in the background). */
async function eventually(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('data plane over HTTP', function () {
  this.timeout(60_000);

  describe('writing and reading a file', () => {
    let server: StartedServer;
    before(async () => {
      server = await startServer({ data: { chunkSizeBytes: CHUNK } });
    });
    after(async () => server?.stop());

    it('init → chunks out of order → status → complete; every read surface shows the file and the blob serves its bytes', async () => {
      const url = server.url;
      const content = testBytes(3 * CHUNK + 1234, 7);
      const size = content.length;
      const hash = sha256(content);
      const path = '/reports/q3/numbers.csv';

      const init = await initWrite(url, { path, size_bytes: size, content_type: 'text/csv', provenance: { work_thread: 'th_quarterly', goal_summary: 'quarterly numbers for the board' } });
      expect(init.status, init.text).to.equal(201);
      expect(init.json).to.include({ object: 'upload', ok: true, namespace: 'default', path, size_bytes: size, chunk_size: CHUNK, chunks: 4, received_bytes: 0, complete: false });
      expect(init.json.received_ranges).to.deep.equal([]);
      expect(init.json.missing_ranges).to.deep.equal([[0, size - 1]]);
      const uploadId: string = init.json.upload_id;
      expect(uploadId).to.match(/^up_[0-9a-f]{32}$/);
      expect(init.json.upload_url).to.equal(`/v1/blobs/upload/${uploadId}`);

      for (const index of [2, 0]) expect((await putChunkOf(url, uploadId, content, CHUNK, index)).status).to.equal(200);
      const half = await uploadStatus(url, uploadId);
      expect(half.status, half.text).to.equal(200);
      expect(half.json).to.include({ received_bytes: 2 * CHUNK, complete: false });
      expect(half.json.received_ranges).to.deep.equal([
        [0, CHUNK - 1],
        [2 * CHUNK, 3 * CHUNK - 1],
      ]);
      expect(half.json.missing_ranges).to.deep.equal([
        [CHUNK, 2 * CHUNK - 1],
        [3 * CHUNK, size - 1],
      ]);
      expect((await putChunkOf(url, uploadId, content, CHUNK, 3)).status).to.equal(200);
      const last = await putChunkOf(url, uploadId, content, CHUNK, 1);
      expect(last.status, last.text).to.equal(200);
      expect(last.json).to.include({ received_bytes: size, complete: true });
      expect(last.json.received_ranges).to.deep.equal([[0, size - 1]]);
      expect(last.json.missing_ranges).to.deep.equal([]);

      const done = await completeWrite(url, uploadId);
      expect(done.status, done.text).to.equal(200);
      expect(done.json).to.include({ ok: true, content_hash: hash, size_bytes: size, namespace: 'default', path, deduplicated: false });
      expect(done.json.record_id).to.be.a('string').that.is.not.empty;
      // The upload is finished: it no longer answers.
      expectRefusal(await uploadStatus(url, uploadId), 404, 'UPLOAD_NOT_FOUND');

      const stat = await get(url, `/v1/data/stat?path=${q(path)}`);
      expect(stat.status, stat.text).to.equal(200);
      expect(stat.json).to.include({ object: 'data_node', namespace: 'default', kind: 'file', path, name: 'numbers.csv', size_bytes: size, content_hash: hash, content_type: 'text/csv', version: 1, record_id: done.json.record_id, pin_state: 'unpinned' });
      const actor: string = stat.json.provenance.actor;
      expect(actor).to.match(/^did:/);
      expect(stat.json.provenance).to.include({ record_id: done.json.record_id, content_hash: hash, work_thread: 'th_quarterly', goal_summary: 'quarterly numbers for the board' });

      const listing = await get(url, `/v1/data/list?path=${q('/reports/q3')}`);
      expect(listing.status, listing.text).to.equal(200);
      expect(listing.json).to.include({ object: 'list', namespace: 'default', path: '/reports/q3', has_more: false, cursor: null });
      expect(listing.json.entries.map((e: any) => [e.path, e.kind, e.size_bytes, e.content_hash])).to.deep.equal([[path, 'file', size, hash]]);
      const root = await get(url, '/v1/data/list');
      expect(root.json.entries.map((e: any) => [e.path, e.kind])).to.deep.include(['/reports', 'directory']);

      const node = await get(url, `/v1/data/node?path=${q(path)}`);
      expect(node.status, node.text).to.equal(200);
      expect(node.json).to.include({ kind: 'file', content_hash: hash, size_bytes: size, content_type: 'text/csv', held: true, blob_path: `/v1/blobs/${hash}` });
      expect(node.json.provenance.actor).to.equal(actor);

      const materials = await get(url, `/v1/data/materials?q=${q('quarterly BOARD')}`);
      expect(materials.status, materials.text).to.equal(200);
      expect(materials.json.data.map((n: any) => n.path)).to.deep.equal([path]);
      expect((await get(url, `/v1/data/materials?q=nothing-matches-this`)).json.data).to.deep.equal([]);

      const provenance = await get(url, `/v1/data/provenance?path=${q('/reports')}`);
      expect(provenance.status, provenance.text).to.equal(200);
      expect(provenance.json.data).to.have.length(1);
      expect(provenance.json.data[0]).to.include({ op: 'write', path, actor, record_id: done.json.record_id, content_hash: hash, size_bytes: size, content_type: 'text/csv', work_thread: 'th_quarterly' });
      expect((await get(url, `/v1/data/provenance?path=${q('/elsewhere')}`)).json.data).to.deep.equal([]);

      const used = await usage(server);
      expect(used).to.include({ object: 'data_usage', namespace: 'default', quota_bytes: null, available_bytes: null });
      expect(used.used_bytes).to.be.at.least(size);
      expect(used.files).to.be.at.least(1);

      // The bytes, whole and in ranges.
      const whole = await readBlob(url, `/v1/blobs/${hash}`, { 'accept-encoding': 'identity' });
      expect(whole.status).to.equal(200);
      expect(whole.bytes.equals(content)).to.equal(true);
      expect(whole.headers.get('etag')).to.equal(`"${hash}"`);
      expect(whole.headers.get('cache-control')).to.contain('immutable');
      expect(whole.headers.get('accept-ranges')).to.equal('bytes');
      expect(whole.headers.get('content-length')).to.equal(String(size));

      const range = await readBlob(url, `/v1/blobs/${hash}`, { range: 'bytes=10-19' });
      expect(range.status).to.equal(206);
      expect(range.headers.get('content-range')).to.equal(`bytes 10-19/${size}`);
      expect(range.bytes.equals(content.subarray(10, 20))).to.equal(true);

      const suffix = await readBlob(url, `/v1/blobs/${hash}`, { range: 'bytes=-5' });
      expect(suffix.status).to.equal(206);
      expect(suffix.headers.get('content-range')).to.equal(`bytes ${size - 5}-${size - 1}/${size}`);
      expect(suffix.bytes.equals(content.subarray(size - 5))).to.equal(true);

      const cached = await readBlob(url, `/v1/blobs/${hash}`, { 'if-none-match': `"${hash}"` });
      expect(cached.status).to.equal(304);
      expect(cached.bytes.length).to.equal(0);
      expect(cached.headers.get('etag')).to.equal(`"${hash}"`);
      expect((await readBlob(url, `/v1/blobs/${hash}`, { 'if-none-match': `"${EMPTY_HASH}"` })).status).to.equal(200);

      const beyond = await get(url, `/v1/blobs/${hash}`, { range: 'bytes=999999999-' });
      expectRefusal(beyond, 416, 'RANGE_NOT_SATISFIABLE');
      expect(beyond.headers.get('content-range')).to.equal(`bytes */${size}`);

      // A hash nobody holds, and one that is not a hash, answer alike.
      expectRefusal(await get(url, `/v1/blobs/${sha256(Buffer.from('never uploaded'))}`), 404, 'BLOB_NOT_FOUND');
      expectRefusal(await get(url, '/v1/blobs/not-a-hash'), 404, 'BLOB_NOT_FOUND');
    });

    it('identical content at a second path is stored once: deduplicated, used_bytes counts it once, logical_bytes twice', async () => {
      const content = testBytes(2 * CHUNK + 77, 21);
      const before = await usage(server);
      const first = await uploadFile(server.url, '/dedupe/one.bin', content, { chunkSize: CHUNK });
      expect(first.json.deduplicated).to.equal(false);
      const between = await usage(server);
      expect(between.used_bytes - before.used_bytes).to.equal(content.length);
      expect(between.logical_bytes - before.logical_bytes).to.equal(content.length);

      const second = await uploadFile(server.url, '/dedupe/two.bin', content, { chunkSize: CHUNK, order: [2, 1, 0] });
      expect(second.json).to.include({ deduplicated: true, content_hash: first.json.content_hash });
      const after = await usage(server);
      expect(after.used_bytes - before.used_bytes).to.equal(content.length);
      expect(after.logical_bytes - before.logical_bytes).to.equal(2 * content.length);
      expect(after.files - before.files).to.equal(2);
      for (const path of ['/dedupe/one.bin', '/dedupe/two.bin']) {
        const stat = await get(server.url, `/v1/data/stat?path=${q(path)}`);
        expect(stat.json).to.include({ content_hash: first.json.content_hash, size_bytes: content.length });
      }
      expect((await readBlob(server.url, `/v1/blobs/${first.json.content_hash}`)).bytes.equals(content)).to.equal(true);
    });

    it('a zero-byte file: no chunks, completes at once, reads back empty', async () => {
      const init = await initWrite(server.url, { path: '/empty/nothing.txt', size_bytes: 0, content_type: 'text/plain' });
      expect(init.status, init.text).to.equal(201);
      expect(init.json).to.include({ chunks: 0, received_bytes: 0, complete: true });
      expect(init.json.missing_ranges).to.deep.equal([]);
      const done = await completeWrite(server.url, init.json.upload_id);
      expect(done.status, done.text).to.equal(200);
      expect(done.json).to.include({ content_hash: EMPTY_HASH, size_bytes: 0 });
      const stat = await get(server.url, `/v1/data/stat?path=${q('/empty/nothing.txt')}`);
      expect(stat.json).to.include({ kind: 'file', size_bytes: 0, content_hash: EMPTY_HASH, content_type: 'text/plain' });
      const blob = await readBlob(server.url, `/v1/blobs/${EMPTY_HASH}`);
      expect(blob.status).to.equal(200);
      expect(blob.bytes.length).to.equal(0);
      expect(blob.headers.get('etag')).to.equal(`"${EMPTY_HASH}"`);
      expectRefusal(await get(server.url, `/v1/blobs/${EMPTY_HASH}`, { range: 'bytes=0-0' }), 416, 'RANGE_NOT_SATISFIABLE');
    });
  });

  describe('refusals of bad input', () => {
    let server: StartedServer;
    const SIZE = 3 * CHUNK + 500;
    const content = testBytes(SIZE, 3);
    let path = 0;
    /** A fresh upload of `content` to a fresh path. */
    const open = async (size = SIZE): Promise<string> => {
      const init = await initWrite(server.url, { path: `/bad/upload-${path++}.bin`, size_bytes: size });
      expect(init.status, init.text).to.equal(201);
      return init.json.upload_id;
    };
    const expectNothingReceived = async (uploadId: string) => {
      const status = await uploadStatus(server.url, uploadId);
      expect(status.status, status.text).to.equal(200);
      expect(status.json).to.include({ received_bytes: 0, complete: false });
      expect(status.json.received_ranges).to.deep.equal([]);
    };

    before(async () => {
      server = await startServer({ data: { chunkSizeBytes: CHUNK } });
    });
    after(async () => server?.stop());

    it('a malformed Content-Range is 400 INVALID_CONTENT_RANGE', async () => {
      const uploadId = await open();
      const bytes = content.subarray(0, CHUNK);
      for (const header of [`bytes=0-${CHUNK - 1}/${SIZE}`, `bytes 0-${CHUNK - 1}`, `items 0-${CHUNK - 1}/${SIZE}`, 'bytes a-b/c', `bytes */${SIZE}`, `bytes 0-${CHUNK - 1}/*`, `bytes -1-${CHUNK - 1}/${SIZE}`, 'garbage']) {
        expectRefusal(await putChunk(server.url, uploadId, bytes, header), 400, 'INVALID_CONTENT_RANGE', {}, header);
      }
      await expectNothingReceived(uploadId);
    });

    it('a misaligned or overlapping Content-Range is 400 INVALID_CONTENT_RANGE', async () => {
      const uploadId = await open();
      const cases: Array<[number, number]> = [
        [100, CHUNK - 1], // starts inside a chunk
        [0, 99], // ends inside a chunk
        [CHUNK / 2, CHUNK + CHUNK / 2 - 1], // straddles two chunks
        [CHUNK, CHUNK - 1], // ends before it starts
        [CHUNK, 0],
      ];
      for (const [start, end] of cases) {
        const bytes = content.subarray(start, Math.max(start, end + 1));
        expectRefusal(await putChunk(server.url, uploadId, bytes, { start, end, total: SIZE }), 400, 'INVALID_CONTENT_RANGE', {}, `${start}-${end}`);
      }
      await expectNothingReceived(uploadId);
    });

    it('a Content-Range past the last byte is 400 INVALID_CONTENT_RANGE', async () => {
      const uploadId = await open();
      // The last chunk is short: a full-length last chunk reaches past the end.
      expectRefusal(await putChunk(server.url, uploadId, Buffer.alloc(CHUNK), { start: 3 * CHUNK, end: 4 * CHUNK - 1, total: SIZE }), 400, 'INVALID_CONTENT_RANGE');
      expectRefusal(await putChunk(server.url, uploadId, Buffer.alloc(1), { start: SIZE, end: SIZE, total: SIZE }), 400, 'INVALID_CONTENT_RANGE');
      expectRefusal(await putChunk(server.url, uploadId, Buffer.concat([content, Buffer.alloc(1)]), { start: 0, end: SIZE, total: SIZE }), 400, 'INVALID_CONTENT_RANGE');
      await expectNothingReceived(uploadId);
    });

    it('a Content-Range total other than the declared size is 400 INVALID_CONTENT_RANGE', async () => {
      const uploadId = await open();
      for (const total of [SIZE - 1, SIZE + 1, 0]) {
        expectRefusal(await putChunk(server.url, uploadId, content.subarray(0, CHUNK), { start: 0, end: CHUNK - 1, total }), 400, 'INVALID_CONTENT_RANGE', {}, `total ${total}`);
      }
      await expectNothingReceived(uploadId);
    });

    it('a missing Content-Range is 400 INVALID_CONTENT_RANGE', async () => {
      const uploadId = await open();
      expectRefusal(await putChunk(server.url, uploadId, content.subarray(0, CHUNK), null), 400, 'INVALID_CONTENT_RANGE');
      await expectNothingReceived(uploadId);
    });

    it('a PUT body that is not application/octet-stream is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const uploadId = await open();
      for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x']) {
        expectRefusal(
          await putChunk(server.url, uploadId, content.subarray(0, CHUNK), { start: 0, end: CHUNK - 1, total: SIZE }, { 'content-type': type }),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
          {},
          type,
        );
      }
      await expectNothingReceived(uploadId);
    });

    it('a body shorter than its range is 400 CONTENT_LENGTH_MISMATCH and the chunk is not counted', async () => {
      const uploadId = await open();
      expectRefusal(await putChunk(server.url, uploadId, content.subarray(0, CHUNK - 1), { start: 0, end: CHUNK - 1, total: SIZE }), 400, 'CONTENT_LENGTH_MISMATCH');
      expectRefusal(await putChunk(server.url, uploadId, Buffer.alloc(0), { start: CHUNK, end: 2 * CHUNK - 1, total: SIZE }), 400, 'CONTENT_LENGTH_MISMATCH');
      await expectNothingReceived(uploadId);
    });

    it('a body longer than its range is 400 CONTENT_LENGTH_MISMATCH, is not counted, and the right bytes then complete to the right hash', async () => {
      const uploadId = await open();
      const longer = Buffer.concat([content.subarray(0, CHUNK), Buffer.from('extra bytes past the range')]);
      expectRefusal(await putChunk(server.url, uploadId, longer, { start: 0, end: CHUNK - 1, total: SIZE }), 400, 'CONTENT_LENGTH_MISMATCH');
      // The last chunk too: nothing may be written past the end of the file.
      const lastLonger = Buffer.concat([content.subarray(3 * CHUNK), Buffer.alloc(CHUNK, 0xab)]);
      expectRefusal(await putChunk(server.url, uploadId, lastLonger, { start: 3 * CHUNK, end: SIZE - 1, total: SIZE }), 400, 'CONTENT_LENGTH_MISMATCH');
      await expectNothingReceived(uploadId);
      expect(statSync(join(uploadsDir(server), uploadId, 'data')).size).to.equal(SIZE);

      for (const index of [3, 2, 1, 0]) expect((await putChunkOf(server.url, uploadId, content, CHUNK, index)).status).to.equal(200);
      const done = await completeWrite(server.url, uploadId);
      expect(done.status, done.text).to.equal(200);
      expect(done.json.content_hash).to.equal(sha256(content));
      expect((await readBlob(server.url, `/v1/blobs/${done.json.content_hash}`)).bytes.equals(content)).to.equal(true);
    });

    it('a body larger than the size declared at init is refused and nothing lands past it', async () => {
      const uploadId = await open(1000);
      const bigger = testBytes(2000, 9);
      expectRefusal(await putChunk(server.url, uploadId, bigger, { start: 0, end: 999, total: 1000 }), 400, 'CONTENT_LENGTH_MISMATCH');
      expectRefusal(await putChunk(server.url, uploadId, bigger, { start: 0, end: 1999, total: 2000 }), 400, 'INVALID_CONTENT_RANGE');
      expectRefusal(await putChunk(server.url, uploadId, bigger, { start: 0, end: 1999, total: 1000 }), 400, 'INVALID_CONTENT_RANGE');
      await expectNothingReceived(uploadId);
      expect(statSync(join(uploadsDir(server), uploadId, 'data')).size).to.equal(1000);
    });

    it('completing with chunks missing is 409 UPLOAD_INCOMPLETE naming the missing ranges, and the upload stays open', async () => {
      const uploadId = await open();
      expect((await putChunkOf(server.url, uploadId, content, CHUNK, 1)).status).to.equal(200);
      expectRefusal(await completeWrite(server.url, uploadId), 409, 'UPLOAD_INCOMPLETE', {
        missing_ranges: [
          [0, CHUNK - 1],
          [2 * CHUNK, SIZE - 1],
        ],
      });
      for (const index of [0, 2]) expect((await putChunkOf(server.url, uploadId, content, CHUNK, index)).status).to.equal(200);
      expectRefusal(await completeWrite(server.url, uploadId), 409, 'UPLOAD_INCOMPLETE', { missing_ranges: [[3 * CHUNK, SIZE - 1]] });
      expect((await putChunkOf(server.url, uploadId, content, CHUNK, 3)).status).to.equal(200);
      expect((await completeWrite(server.url, uploadId)).status).to.equal(200);
    });

    it('an unknown upload id is 404 UPLOAD_NOT_FOUND on every upload route', async () => {
      for (const id of [UNKNOWN_UPLOAD, 'nope']) {
        expectRefusal(await uploadStatus(server.url, id), 404, 'UPLOAD_NOT_FOUND', {}, `GET ${id}`);
        expectRefusal(await putChunk(server.url, id, Buffer.alloc(10), { start: 0, end: 9, total: 10 }), 404, 'UPLOAD_NOT_FOUND', {}, `PUT ${id}`);
        expectRefusal(await completeWrite(server.url, id), 404, 'UPLOAD_NOT_FOUND', {}, `complete ${id}`);
        expectRefusal(await request(server.url, 'DELETE', `/v1/blobs/upload/${id}`), 404, 'UPLOAD_NOT_FOUND', {}, `DELETE ${id}`);
      }
      // An aborted upload is gone the same way, with its folder.
      const uploadId = await open();
      expect((await putChunkOf(server.url, uploadId, content, CHUNK, 0)).status).to.equal(200);
      const aborted = await request(server.url, 'DELETE', `/v1/blobs/upload/${uploadId}`);
      expect(aborted.status, aborted.text).to.equal(200);
      expect(aborted.json).to.deep.equal({ ok: true, upload_id: uploadId, aborted: true });
      expectRefusal(await uploadStatus(server.url, uploadId), 404, 'UPLOAD_NOT_FOUND');
      expectRefusal(await completeWrite(server.url, uploadId), 404, 'UPLOAD_NOT_FOUND');
      expect(existsSync(join(uploadsDir(server), uploadId))).to.equal(false);
    });

    describe('bad paths: 400 INVALID_PATH on every route that takes one', () => {
      const BAD_PATHS: Array<[string, string]> = [
        ['..', 'a relative parent'],
        ['/a/../b', 'a ".." segment'],
        ['/a/./b', 'a "." segment'],
        ['a', 'a relative path'],
        ['', 'an empty path'],
        ['//', 'an empty segment at the root'],
        ['/a//b', 'an empty segment'],
        ['/a/', 'a trailing slash'],
        ['/a\u0000b', 'a NUL'],
        ['/a\u0007b', 'a BEL'],
        ['/a\u009fb', 'a C1 control'],
        ['/a\\b', 'a backslash'],
        ['/a\ud800b', 'an unpaired surrogate'],
        ['/a\ufffdb', 'U+FFFD'],
        [('/' + 'p'.repeat(99)).repeat(50), 'a 5000-byte path'],
        ['/' + 's'.repeat(300), 'a 300-byte segment'],
        ['/dir/' + 'é'.repeat(128), 'a 256-byte segment of two-byte characters'],
      ];

      type Route = { name: string; send: (path: string) => Promise<HttpAnswer> };
      const queryRoute = (name: string, route: string, extra = ''): Route => ({ name, send: (path) => get(server.url, `${route}?path=${q(path)}${extra}`) });
      const bodyRoute = (name: string, route: string, body: (path: string) => Record<string, unknown>): Route => ({ name, send: (path) => postJson(server.url, route, body(path)) });
      const ROUTES: Route[] = [
        queryRoute('list', '/v1/data/list'),
        queryRoute('stat', '/v1/data/stat'),
        queryRoute('node', '/v1/data/node'),
        queryRoute('provenance', '/v1/data/provenance'),
        bodyRoute('mkdir', '/v1/data/mkdir', (path) => ({ path })),
        bodyRoute('mv from', '/v1/data/mv', (from) => ({ from, to: '/moved' })),
        bodyRoute('mv to', '/v1/data/mv', (to) => ({ from: '/reports', to })),
        bodyRoute('rm', '/v1/data/rm', (path) => ({ path })),
        bodyRoute('rm recursive', '/v1/data/rm', (path) => ({ path, recursive: true })),
        bodyRoute('publish', '/v1/data/publish', (path) => ({ path })),
        bodyRoute('write/init', '/v1/data/write/init', (path) => ({ path, size_bytes: 1 })),
        bodyRoute('read-url', '/v1/data/read-url', (path) => ({ path })),
      ];

      for (const route of ROUTES) {
        it(`${route.name}`, async () => {
          for (const [path, what] of BAD_PATHS) {
            expectRefusal(await route.send(path), 400, 'INVALID_PATH', {}, `${route.name} with ${what}`);
          }
        });
      }

      it('invalid UTF-8 (%FF) in a query string; in a JSON body the body itself is refused', async () => {
        for (const route of ['/v1/data/list', '/v1/data/stat', '/v1/data/node', '/v1/data/provenance']) {
          expectRefusal(await get(server.url, `${route}?path=%2Fa%FF`), 400, 'INVALID_PATH', {}, route);
          expectRefusal(await get(server.url, `${route}?path=%2F%C3`), 400, 'INVALID_PATH', {}, route);
        }
        const json = Buffer.concat([Buffer.from('{"path":"/a'), Buffer.from([0xff]), Buffer.from('b","size_bytes":1}')]);
        expectRefusal(await postRaw(server.url, '/v1/data/write/init', json), 400, 'INVALID_SHAPE');
        expectRefusal(await postRaw(server.url, '/v1/data/mkdir', Buffer.from(json.toString('latin1').replace(',"size_bytes":1', ''), 'latin1')), 400, 'INVALID_SHAPE');
      });

      it('nothing was created by any of them', async () => {
        const paths: string[] = (await get(server.url, '/v1/data/list')).json.entries.map((e: any) => e.path);
        for (const created of ['/a', '/a/', '/moved', '/dir', '..', 'a']) expect(paths).to.not.include(created);
        expect(paths.filter((p) => p.startsWith('/pp') || p.startsWith('/ss'))).to.deep.equal([]);
      });
    });

    it('mv of a directory into its own subtree is 409 MOVE_INTO_ITSELF', async () => {
      expect((await postJson(server.url, '/v1/data/mkdir', { path: '/tree/sub/deeper' })).status).to.equal(200);
      expectRefusal(await postJson(server.url, '/v1/data/mv', { from: '/tree', to: '/tree/sub/inner' }), 409, 'MOVE_INTO_ITSELF');
      expectRefusal(await postJson(server.url, '/v1/data/mv', { from: '/tree', to: '/tree/x' }), 409, 'MOVE_INTO_ITSELF');
      expect((await get(server.url, `/v1/data/stat?path=${q('/tree/sub/deeper')}`)).json.kind).to.equal('directory');
      // Onto a sibling whose name starts the same is no descent.
      const moved = await postJson(server.url, '/v1/data/mv', { from: '/tree', to: '/tree2' });
      expect(moved.status, moved.text).to.equal(200);
      expect((await get(server.url, `/v1/data/stat?path=${q('/tree2/sub/deeper')}`)).json.kind).to.equal('directory');
      expectRefusal(await get(server.url, `/v1/data/stat?path=${q('/tree')}`), 404, 'PATH_NOT_FOUND');
    });

    it('rm of a non-empty directory is 409 DIRECTORY_NOT_EMPTY; recursive removes it all', async () => {
      await uploadFile(server.url, '/full/inner/file.bin', testBytes(100, 5), { chunkSize: CHUNK });
      expectRefusal(await postJson(server.url, '/v1/data/rm', { path: '/full' }), 409, 'DIRECTORY_NOT_EMPTY');
      expectRefusal(await postJson(server.url, '/v1/data/rm', { path: '/full', recursive: false }), 409, 'DIRECTORY_NOT_EMPTY');
      expect((await get(server.url, `/v1/data/stat?path=${q('/full/inner/file.bin')}`)).status).to.equal(200);
      const removed = await postJson(server.url, '/v1/data/rm', { path: '/full', recursive: true });
      expect(removed.status, removed.text).to.equal(200);
      expect(removed.json).to.include({ ok: true, changed: true, removed: 3 });
      for (const path of ['/full', '/full/inner', '/full/inner/file.bin']) expectRefusal(await get(server.url, `/v1/data/stat?path=${q(path)}`), 404, 'PATH_NOT_FOUND', {}, path);
      expect((await get(server.url, '/v1/data/list')).json.entries.map((e: any) => e.path)).to.not.include('/full');
      expectRefusal(await postJson(server.url, '/v1/data/rm', { path: '/full', recursive: true }), 404, 'PATH_NOT_FOUND');
    });
    describe('a failed re-send of a chunk that had arrived', () => {
      const BIG = 1024 * 1024;
      let big: StartedServer;
      before(async () => {
        big = await startServer({ data: { chunkSizeBytes: BIG } });
      });
      after(async () => big?.stop());

      for (const [what, length] of [
        ['shorter', BIG - 1],
        ['longer', BIG + 4096],
      ] as const) {
        it(`a ${what} body over an arrived chunk never leaves other bytes under the content hash`, async () => {
          const content = testBytes(BIG + BIG / 2, 13);
          const uploadId = await openAndSend(big.url, `/resend/${what}.bin`, content, { chunkSize: BIG });
          // The first half of the damaged body is on disk, over the arrived chunk, before the rest is sent.
          const damaged = Buffer.alloc(length, 0x5a);
          const refusal = await putInTwoParts(big.url, uploadId, `bytes 0-${BIG - 1}/${content.length}`, damaged, BIG / 2, join(uploadsDir(big), uploadId, 'data'));
          expectRefusal(refusal, 400, 'CONTENT_LENGTH_MISMATCH');
          // Either the damaged chunk counts as missing again, or its earlier bytes were kept: never a mix of both.
          const status = await uploadStatus(big.url, uploadId);
          for (const [start] of status.json.missing_ranges as Array<[number, number]>) expect((await putChunkOf(big.url, uploadId, content, BIG, start / BIG)).status).to.equal(200);
          const done = await completeWrite(big.url, uploadId);
          expect(done.status, done.text).to.equal(200);
          const blob = await readBlob(big.url, `/v1/blobs/${done.json.content_hash}`);
          expect(sha256(blob.bytes), 'the blob served under a hash hashes to it').to.equal(done.json.content_hash);
          expect(blob.bytes.equals(content), 'the stored bytes are the content').to.equal(true);
        });
      }
    });
  });

  describe('quotas', () => {
    let server: StartedServer;
    beforeEach(async () => {
      server = await startServer({ data: { chunkSizeBytes: CHUNK } });
    });
    afterEach(async () => server?.stop());

    it('an upload over the quota is refused at init with 507 QUOTA_EXCEEDED, and nothing is listed', async () => {
      await setQuota(server.url, 'default', 100_000);
      expectRefusal(await initWrite(server.url, { path: '/big.bin', size_bytes: 100_001 }), 507, 'QUOTA_EXCEEDED', { quota_bytes: 100_000, used_bytes: 0, reserved_bytes: 0, requested_bytes: 100_001 });
      expect((await get(server.url, '/v1/data/list')).json.entries).to.deep.equal([]);
      expect(await usage(server)).to.deep.include({ quota_bytes: 100_000, available_bytes: 100_000, used_bytes: 0, uploads: { open: 0, reserved_bytes: 0 } });
      // An open upload reserves its size: a second one that would not fit beside it is refused too.
      const first = await initWrite(server.url, { path: '/half.bin', size_bytes: 60_000 });
      expect(first.status, first.text).to.equal(201);
      expectRefusal(await initWrite(server.url, { path: '/other-half.bin', size_bytes: 60_000 }), 507, 'QUOTA_EXCEEDED', { quota_bytes: 100_000, used_bytes: 0, reserved_bytes: 60_000, requested_bytes: 60_000 });
      expect((await initWrite(server.url, { path: '/fits.bin', size_bytes: 40_000 })).status).to.equal(201);
    });

    it('a quota lowered mid-upload refuses the next chunk with 507 QUOTA_EXCEEDED; raising it lets the upload continue', async () => {
      const content = testBytes(3 * CHUNK - 10, 11);
      const init = await initWrite(server.url, { path: '/mid/upload.bin', size_bytes: content.length });
      expect(init.status, init.text).to.equal(201);
      const uploadId: string = init.json.upload_id;
      expect((await putChunkOf(server.url, uploadId, content, CHUNK, 0)).status).to.equal(200);

      await setQuota(server.url, 'default', content.length - 1);
      expectRefusal(await putChunkOf(server.url, uploadId, content, CHUNK, 1), 507, 'QUOTA_EXCEEDED', {
        quota_bytes: content.length - 1,
        used_bytes: 0,
        reserved_bytes: 0,
        requested_bytes: content.length,
      });
      const status = await uploadStatus(server.url, uploadId);
      expect(status.json.received_ranges).to.deep.equal([[0, CHUNK - 1]]);

      await setQuota(server.url, 'default', content.length);
      for (const index of [1, 2]) expect((await putChunkOf(server.url, uploadId, content, CHUNK, index)).status).to.equal(200);
      const done = await completeWrite(server.url, uploadId);
      expect(done.status, done.text).to.equal(200);
      expect(done.json.content_hash).to.equal(sha256(content));
      expect(await usage(server)).to.deep.include({ used_bytes: content.length, quota_bytes: content.length, available_bytes: 0, uploads: { open: 0, reserved_bytes: 0 } });
      // Full: one more byte is refused.
      expectRefusal(await initWrite(server.url, { path: '/mid/one-more.bin', size_bytes: 1 }), 507, 'QUOTA_EXCEEDED', { quota_bytes: content.length, used_bytes: content.length, reserved_bytes: 0, requested_bytes: 1 });
    });
  });

  describe('a full disk', () => {
    let server: StartedServer;
    before(async () => {
      server = await startServer({ data: { chunkSizeBytes: CHUNK, minFreeBytes: Number.MAX_SAFE_INTEGER } });
    });
    after(async () => server?.stop());

    it('refuses an upload at init with 507 STORAGE_FULL, and nothing is listed', async () => {
      expectRefusal(await initWrite(server.url, { path: '/disk/full.bin', size_bytes: 10 }), 507, 'STORAGE_FULL');
      expectRefusal(await initWrite(server.url, { path: '/disk/empty.bin', size_bytes: 0 }), 507, 'STORAGE_FULL');
      expect((await get(server.url, '/v1/data/list')).json.entries).to.deep.equal([]);
      expectRefusal(await get(server.url, `/v1/data/stat?path=${q('/disk')}`), 404, 'PATH_NOT_FOUND');
      expect((await usage(server)).uploads).to.deep.equal({ open: 0, reserved_bytes: 0 });
    });
  });

  describe('preconditions', () => {
    let server: StartedServer;
    before(async () => {
      server = await startServer({ data: { chunkSizeBytes: CHUNK } });
    });
    after(async () => server?.stop());

    it('create-only on an existing path is 409 PRECONDITION_FAILED with expected_hash null and current_hash', async () => {
      const original = testBytes(CHUNK + 5, 31);
      const first = await uploadFile(server.url, '/cas/create-only.txt', original, { chunkSize: CHUNK, init: { precondition: { expected_hash: null } } });
      expectRefusal(await initWrite(server.url, { path: '/cas/create-only.txt', size_bytes: 3, precondition: { expected_hash: null } }), 409, 'PRECONDITION_FAILED', {
        expected_hash: null,
        current_hash: first.json.content_hash,
      });
      expect((await get(server.url, `/v1/data/stat?path=${q('/cas/create-only.txt')}`)).json).to.include({ content_hash: sha256(original), version: 1 });
    });

    it('compare-and-swap: the current hash succeeds, a stale one is 409 with both hashes', async () => {
      const path = '/cas/swap.txt';
      const v1 = await uploadFile(server.url, path, testBytes(1000, 41), { chunkSize: CHUNK });
      const v2content = testBytes(CHUNK + 1000, 42);
      const v2 = await uploadFile(server.url, path, v2content, { chunkSize: CHUNK, init: { precondition: { expected_hash: v1.json.content_hash } } });
      expect((await get(server.url, `/v1/data/stat?path=${q(path)}`)).json).to.include({ content_hash: sha256(v2content), version: 2 });
      expectRefusal(await initWrite(server.url, { path, size_bytes: 5, precondition: { expected_hash: v1.json.content_hash } }), 409, 'PRECONDITION_FAILED', {
        expected_hash: v1.json.content_hash,
        current_hash: v2.json.content_hash,
      });
      // Decided at completion too: the file changed between init and complete.
      const late = await openAndSend(server.url, path, testBytes(10, 43), { chunkSize: CHUNK, init: { precondition: { expected_hash: v2.json.content_hash } } });
      const v3 = await uploadFile(server.url, path, testBytes(20, 44), { chunkSize: CHUNK });
      expectRefusal(await completeWrite(server.url, late), 409, 'PRECONDITION_FAILED', { expected_hash: v2.json.content_hash, current_hash: v3.json.content_hash });
      expectRefusal(await uploadStatus(server.url, late), 404, 'UPLOAD_NOT_FOUND');
      // A hash on a path that does not exist fails with current_hash null.
      expectRefusal(await initWrite(server.url, { path: '/cas/absent.txt', size_bytes: 1, precondition: { expected_hash: v1.json.content_hash } }), 409, 'PRECONDITION_FAILED', {
        expected_hash: v1.json.content_hash,
        current_hash: null,
      });
    });

    it('two writers racing with the same expected hash: exactly one wins, ten times over', async () => {
      const path = '/cas/race.bin';
      let current = (await uploadFile(server.url, path, testBytes(CHUNK + 3, 50), { chunkSize: CHUNK })).json.content_hash as string;
      for (let round = 0; round < 10; round++) {
        const contents = [testBytes(CHUNK + 100 + round, 1000 + round), testBytes(2 * CHUNK + round, 2000 + round)];
        const uploads = await Promise.all(contents.map((content) => openAndSend(server.url, path, content, { chunkSize: CHUNK, init: { precondition: { expected_hash: current } } })));
        const answers = await Promise.all(uploads.map((id) => completeWrite(server.url, id)));
        const winners = answers.flatMap((answer, i) => (answer.status === 200 ? [i] : []));
        expect(winners, `round ${round}: ${answers.map((a) => a.text).join(' | ')}`).to.have.length(1);
        const winner = winners[0]!;
        const winnerHash = sha256(contents[winner]!);
        expectRefusal(answers[1 - winner]!, 409, 'PRECONDITION_FAILED', { expected_hash: current, current_hash: winnerHash }, `round ${round}`);
        const stat = await get(server.url, `/v1/data/stat?path=${q(path)}`);
        expect(stat.json).to.include({ content_hash: winnerHash, size_bytes: contents[winner]!.length, version: round + 2 });
        expect((await readBlob(server.url, `/v1/blobs/${winnerHash}`)).bytes.equals(contents[winner]!)).to.equal(true);
        current = winnerHash;
      }
      expect((await usage(server)).uploads.open).to.equal(0);
    });
  });

  describe('node records', () => {
    let server: StartedServer;
    before(async () => {
      server = await startServer({ data: { chunkSizeBytes: CHUNK } });
    });
    after(async () => server?.stop());

    it('cannot be forged through POST /v1/records: 403 FORBIDDEN', async () => {
      const content = testBytes(50, 61);
      const hash = (await uploadFile(server.url, '/real.bin', content, { chunkSize: CHUNK })).json.content_hash as string;
      const body = { kind: 'core.data.node.v1', op: 'write', path: '/forged.bin', content_hash: hash, size_bytes: content.length, content_type: 'application/octet-stream' };
      expectRefusal(await postRecord(server.url, recordInput({ act: 'KNOW', body })), 403, 'FORBIDDEN');
      expectRefusal(await postRecord(server.url, recordInput({ thread: dataThreadId('default'), act: 'KNOW', body })), 403, 'FORBIDDEN');
      expectRefusal(await postRecord(server.url, recordInput({ thread: dataThreadId('default'), act: 'KNOW', body: { kind: 'core.data.node.v1', op: 'mkdir', path: '/forged-dir' } })), 403, 'FORBIDDEN');
      for (const path of ['/forged.bin', '/forged-dir']) expectRefusal(await get(server.url, `/v1/data/stat?path=${q(path)}`), 404, 'PATH_NOT_FOUND');
    });
  });

  describe('uploads across a restart, and their expiry', () => {
    const started: StartedServer[] = [];
    let keptDir: string | null = null;
    afterEach(async () => {
      for (const server of started.splice(0)) await server.stop().catch(() => undefined);
      if (keptDir) await rm(keptDir, { recursive: true, force: true });
      keptDir = null;
    });

    it('resume after a restart: received ranges survive, only the missing ones are sent, the bytes are right', async () => {
      const content = testBytes(4 * CHUNK - 333, 71);
      const first = await startServer({ keepDataDir: true, data: { chunkSizeBytes: CHUNK } });
      started.push(first);
      keptDir = first.dataDir;
      const uploadId = await openAndSend(first.url, '/resume/file.bin', content, { chunkSize: CHUNK, order: [0, 2] });
      await first.stop();

      const second = await startServer({ dataDir: keptDir, keepDataDir: true, data: { chunkSizeBytes: CHUNK } });
      started.push(second);
      const status = await uploadStatus(second.url, uploadId);
      expect(status.status, status.text).to.equal(200);
      expect(status.json.received_ranges).to.deep.equal([
        [0, CHUNK - 1],
        [2 * CHUNK, 3 * CHUNK - 1],
      ]);
      for (const [start] of status.json.missing_ranges as Array<[number, number]>) {
        expect((await putChunkOf(second.url, uploadId, content, CHUNK, start / CHUNK)).status).to.equal(200);
      }
      expect((await uploadStatus(second.url, uploadId)).json.complete).to.equal(true);
      const done = await completeWrite(second.url, uploadId);
      expect(done.status, done.text).to.equal(200);
      expect(done.json.content_hash).to.equal(sha256(content));
      expect((await readBlob(second.url, `/v1/blobs/${done.json.content_hash}`)).bytes.equals(content)).to.equal(true);
      expect(existsSync(join(uploadsDir(second), uploadId))).to.equal(false);
    });

    it('an upload idle past uploadTtlSeconds answers 404 UPLOAD_NOT_FOUND and its folder is removed', async () => {
      let now = Date.now();
      const server = await startServer({ clock: () => now, data: { chunkSizeBytes: CHUNK, uploadTtlSeconds: 10 } });
      started.push(server);
      const content = testBytes(2 * CHUNK, 81);
      const uploadId = await openAndSend(server.url, '/expiring.bin', content, { chunkSize: CHUNK, order: [0] });
      const folder = join(uploadsDir(server), uploadId);
      expect(existsSync(join(folder, 'data'))).to.equal(true);

      // Each chunk extends the deadline.
      now += 9_000;
      expect((await putChunkOf(server.url, uploadId, content, CHUNK, 1)).status).to.equal(200);
      now += 9_000;
      expect((await uploadStatus(server.url, uploadId)).json.complete).to.equal(true);

      now += 2_000;
      expectRefusal(await uploadStatus(server.url, uploadId), 404, 'UPLOAD_NOT_FOUND');
      expectRefusal(await putChunkOf(server.url, uploadId, content, CHUNK, 0), 404, 'UPLOAD_NOT_FOUND');
      expectRefusal(await completeWrite(server.url, uploadId), 404, 'UPLOAD_NOT_FOUND');
      await eventually(() => !existsSync(folder), 'the expired upload folder to be removed');
      expect((await usage(server)).uploads).to.deep.equal({ open: 0, reserved_bytes: 0 });
      expectRefusal(await get(server.url, `/v1/data/stat?path=${q('/expiring.bin')}`), 404, 'PATH_NOT_FOUND');
    });
  });

  describe('with auth required', () => {
    let server: StartedServer;
    let now = Date.now();
    let admin: Credential;
    let alice: Credential;
    let bob: Credential;
    before(async () => {
      server = await startServer({ clock: () => now, auth: { required: true }, data: { chunkSizeBytes: CHUNK } });
      admin = await bootstrapAdmin(server.url);
      alice = await createAccount(server.url, admin, 'alice', ['records:read', 'records:write']);
      bob = await createAccount(server.url, admin, 'bob', ['records:read', 'records:write']);
    });
    after(async () => server?.stop());

    it("another caller's upload answers 404 UPLOAD_NOT_FOUND, the same as an unknown one", async () => {
      const content = testBytes(2 * CHUNK, 91);
      const uploadId = await openAndSend(server.url, '/owned/by-alice.bin', content, { chunkSize: CHUNK, order: [0], headers: bearer(alice) });
      for (const id of [uploadId, UNKNOWN_UPLOAD]) {
        expectRefusal(await uploadStatus(server.url, id, bearer(bob)), 404, 'UPLOAD_NOT_FOUND', {}, `GET ${id}`);
        expectRefusal(await putChunkOf(server.url, id, content, CHUNK, 1, bearer(bob)), 404, 'UPLOAD_NOT_FOUND', {}, `PUT ${id}`);
        expectRefusal(await completeWrite(server.url, id, bearer(bob)), 404, 'UPLOAD_NOT_FOUND', {}, `complete ${id}`);
        expectRefusal(await request(server.url, 'DELETE', `/v1/blobs/upload/${id}`, { headers: bearer(bob) }), 404, 'UPLOAD_NOT_FOUND', {}, `DELETE ${id}`);
      }
      // Without a bearer at all: authentication is asked for first.
      expectRefusal(await uploadStatus(server.url, uploadId), 401, 'AUTH_REQUIRED');
      // Bob changed nothing: alice's upload still holds only her chunk, and she finishes it.
      const status = await uploadStatus(server.url, uploadId, bearer(alice));
      expect(status.json.received_ranges).to.deep.equal([[0, CHUNK - 1]]);
      expect((await putChunkOf(server.url, uploadId, content, CHUNK, 1, bearer(alice))).status).to.equal(200);
      const done = await completeWrite(server.url, uploadId, bearer(alice));
      expect(done.status, done.text).to.equal(200);
      expect(done.json.content_hash).to.equal(sha256(content));
      const stat = await get(server.url, `/v1/data/stat?path=${q('/owned/by-alice.bin')}`, bearer(bob));
      expect(stat.json.provenance.actor).to.equal(alice.did);
    });

    describe('signed URLs', () => {
      const content = testBytes(CHUNK + 4321, 101);
      const hash = sha256(content);
      const other = testBytes(100, 102);
      before(async () => {
        await uploadFile(server.url, '/shared/report.pdf', content, { chunkSize: CHUNK, headers: bearer(alice), init: { content_type: 'application/pdf' } });
        await uploadFile(server.url, '/shared/other.bin', other, { chunkSize: CHUNK, headers: bearer(alice) });
      });
      const readUrl = async (expiresIn?: number) => {
        const answer = await request(server.url, 'POST', '/v1/data/read-url', { json: { path: '/shared/report.pdf', ...(expiresIn ? { expires_in: expiresIn } : {}) }, headers: bearer(alice) });
        expect(answer.status, answer.text).to.equal(200);
        return answer.json;
      };
      /** A copy of `blobUrl` changed by `change`. */
      const tamper = (blobUrl: string, change: (url: URL) => void): string => {
        const url = new URL(blobUrl);
        change(url);
        return url.toString();
      };

      it('a valid signed URL reads the bytes without a bearer, ranges included', async () => {
        expectRefusal(await get(server.url, `/v1/blobs/${hash}`), 401, 'AUTH_REQUIRED');
        const link = await readUrl();
        expect(link).to.include({ via: 'signed_url', content_hash: hash, size_bytes: content.length, expires_in: 900 });
        expect(link.blob_url.startsWith(`${server.url}/v1/blobs/${hash}?`)).to.equal(true);
        expect(Date.parse(link.expires_at)).to.equal((Math.floor(now / 1000) + 900) * 1000);
        const whole = await readBlob(server.url, link.blob_url);
        expect(whole.status).to.equal(200);
        expect(whole.bytes.equals(content)).to.equal(true);
        expect(whole.headers.get('content-type')).to.equal('application/pdf');
        expect(whole.headers.get('etag')).to.equal(`"${hash}"`);
        const range = await readBlob(server.url, link.blob_url, { range: 'bytes=10-19' });
        expect(range.status).to.equal(206);
        expect(range.bytes.equals(content.subarray(10, 20))).to.equal(true);
        const suffix = await readBlob(server.url, link.blob_url, { range: 'bytes=-5' });
        expect(suffix.status).to.equal(206);
        expect(suffix.bytes.equals(content.subarray(content.length - 5))).to.equal(true);
        expect((await readBlob(server.url, link.blob_url, { 'if-none-match': `"${hash}"` })).status).to.equal(304);
        // A lifetime over the maximum is capped.
        expect((await readUrl(30 * 86_400)).expires_in).to.equal(7 * 86_400);
      });

      it('a tampered signed URL is 403 SIGNED_URL_INVALID', async () => {
        const { blob_url: blobUrl } = await readUrl();
        const flip = (text: string, at = 0) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
        const otherHash = sha256(Buffer.from('another content'));
        const tampered = {
          sig: tamper(blobUrl, (u) => u.searchParams.set('sig', flip(u.searchParams.get('sig')!))),
          'sig (middle)': tamper(blobUrl, (u) => u.searchParams.set('sig', flip(u.searchParams.get('sig')!, 20))),
          'sig removed': tamper(blobUrl, (u) => u.searchParams.delete('sig')),
          'sig empty': tamper(blobUrl, (u) => u.searchParams.set('sig', '')),
          expires: tamper(blobUrl, (u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600))),
          'expires removed': tamper(blobUrl, (u) => u.searchParams.delete('expires')),
          'expires not a number': tamper(blobUrl, (u) => u.searchParams.set('expires', 'soon')),
          'content type': tamper(blobUrl, (u) => u.searchParams.set('content_type', 'text/html')),
          'content type removed': tamper(blobUrl, (u) => u.searchParams.delete('content_type')),
          'hash of no blob': tamper(blobUrl, (u) => (u.pathname = `/v1/blobs/${otherHash}`)),
          'hash of another held blob': tamper(blobUrl, (u) => (u.pathname = `/v1/blobs/${sha256(other)}`)),
          'hash one character off': tamper(blobUrl, (u) => (u.pathname = `/v1/blobs/${flip(hash)}`)),
        };
        for (const [what, location] of Object.entries(tampered)) expectRefusal(await get(location, ''), 403, 'SIGNED_URL_INVALID', {}, what);
        // Tampered URLs are refused with a bearer too (the signature is what is checked when one is given).
        expectRefusal(await get(tampered.sig, '', bearer(bob)), 403, 'SIGNED_URL_INVALID');
      });

      it('an expired signed URL is 403 SIGNED_URL_EXPIRED', async () => {
        const link = await readUrl(60);
        expect((await readBlob(server.url, link.blob_url)).status).to.equal(200);
        now += 59_000;
        expect((await readBlob(server.url, link.blob_url, { range: 'bytes=0-0' })).status).to.equal(206);
        now += 2_000;
        expectRefusal(await get(link.blob_url, ''), 403, 'SIGNED_URL_EXPIRED');
        expectRefusal(await get(link.blob_url, '', { range: 'bytes=0-9' }), 403, 'SIGNED_URL_EXPIRED');
        // Forging a later expiry does not revive it.
        const extended = tamper(link.blob_url, (u) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)));
        expectRefusal(await get(extended, ''), 403, 'SIGNED_URL_INVALID');
        // A new URL works again, and the bearer route never depended on the URL.
        expect((await readBlob(server.url, (await readUrl()).blob_url)).status).to.equal(200);
        expect((await readBlob(server.url, `/v1/blobs/${hash}`, bearer(bob))).status).to.equal(200);
      });
    });
  });
});
