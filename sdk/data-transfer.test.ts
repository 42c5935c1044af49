/**
 * uploadFile and readBlobRange against a live server with 64 KiB chunks.
 * A fetch wrapper records every request the SDK makes (method, path,
 * Content-Range) and can fail one chunk PUT: before it reaches the server,
 * after the server stored it (the answer is lost), or with a 503. The
 * assertions are on what went over the wire: each chunk sent once unless its
 * first attempt never arrived, a resumed upload sends only the missing
 * chunks, and a refusal is neither retried nor hidden.
 */
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type StartedServer } from '../test/helpers/start-server.js';
import { createLoomClient, DataTransferError, readBlobRange, uploadFile, type UploadProgress } from './index.js';

const CHUNK = 64 * 1024;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Sent {
  method: string;
  path: string;
  range: string | null;
}

type Fault = 'before' | 'after' | '503';

/** A fetch that records requests and, when asked, fails the `nth` chunk PUT once in the way `fault` says. */
function recordingFetch(fault?: { nth: number; kind: Fault }) {
  const sent: Sent[] = [];
  let puts = 0;
  const wrapped: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    sent.push({ method: request.method, path: new URL(request.url).pathname, range: request.headers.get('content-range') });
    if (request.method !== 'PUT' || ++puts !== fault?.nth) return fetch(request);
    if (fault.kind === 'before') throw new TypeError('fetch failed', { cause: new Error('ECONNRESET (injected)') });
    if (fault.kind === '503') return new Response(JSON.stringify({ object: 'error', code: 'SERVICE_UNAVAILABLE', message: 'injected' }), { status: 503 });
    const answer = await fetch(request);
    await answer.arrayBuffer();
    throw new TypeError('fetch failed', { cause: new Error('socket closed after the request (injected)') });
  };
  return { fetch: wrapped, sent, puts: () => sent.filter((s) => s.method === 'PUT') };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const part of stream as unknown as AsyncIterable<Uint8Array>) parts.push(part);
  return Buffer.concat(parts);
}

describe('sdk uploadFile and readBlobRange against a live server', function () {
  this.timeout(30_000);
  let server: StartedServer;
  let dir: string;
  const content = randomBytes(CHUNK * 5 + 1234);
  const chunks = Math.ceil(content.length / CHUNK);
  const ranges = Array.from({ length: chunks }, (_, i) => `bytes ${i * CHUNK}-${Math.min((i + 1) * CHUNK, content.length) - 1}/${content.length}`);

  before(async () => {
    server = await startServer({ data: { chunkSizeBytes: CHUNK } });
    dir = await mkdtemp(join(tmpdir(), 'loom-sdk-transfer-'));
  });
  after(async () => {
    await server?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const client = (fetch?: typeof globalThis.fetch) => createLoomClient({ baseUrl: server.url, ...(fetch ? { fetch } : {}) });

  it('uploads a file-backed Blob chunk by chunk, each chunk once, and the stored bytes hash to the content', async () => {
    const file = join(dir, 'round-trip.bin');
    await writeFile(file, content);
    const wire = recordingFetch();
    const progress: UploadProgress[] = [];
    const result = await uploadFile(client(wire.fetch), { path: '/sdk/round-trip.bin', content: await openAsBlob(file), contentType: 'application/x-test', onProgress: (p) => progress.push(p) });

    expect(result.answer.content_hash).to.equal(sha256(content));
    expect(result.answer.size_bytes).to.equal(content.length);
    expect(result.resumed).to.equal(false);
    expect(result.transferredBytes).to.equal(content.length);
    expect(wire.puts().map((s) => s.range)).to.deep.equal(ranges);
    expect(progress.map((p) => p.sentBytes)).to.deep.equal([0, ...ranges.map((_, i) => Math.min((i + 1) * CHUNK, content.length))]);
    expect(progress.every((p) => p.uploadId === result.uploadId && p.totalBytes === content.length)).to.equal(true);

    const read = await fetch(`${server.url}/v1/blobs/${result.answer.content_hash}`);
    expect(sha256(Buffer.from(await read.arrayBuffer()))).to.equal(sha256(content));
    const stat = (await (await fetch(`${server.url}/v1/data/stat?path=/sdk/round-trip.bin`)).json()) as { content_type: string };
    expect(stat.content_type).to.equal('application/x-test');
  });

  it('resumes an interrupted upload: only the chunks the server lacks are sent', async () => {
    const controller = new AbortController();
    let uploadId = '';
    const first = recordingFetch();
    const interrupted = uploadFile(client(first.fetch), {
      path: '/sdk/resumed.bin',
      content: new Blob([content]),
      signal: controller.signal,
      onUpload: (status) => void (uploadId = status.upload_id),
      // Stop once two chunks have landed.
      onProgress: (p) => p.sentBytes >= 2 * CHUNK && controller.abort(new Error('interrupted by the test')),
    });
    expect(((await interrupted.catch((e: unknown) => e)) as Error).message).to.equal('interrupted by the test');
    expect(first.puts()).to.have.length(2);
    const status = (await (await fetch(`${server.url}/v1/blobs/upload/${uploadId}`)).json()) as { received_bytes: number };
    expect(status.received_bytes).to.equal(2 * CHUNK);

    const second = recordingFetch();
    const result = await uploadFile(client(second.fetch), { path: '/sdk/resumed.bin', content: new Blob([content]), resumeUploadId: uploadId });
    expect(result.resumed).to.equal(true);
    expect(result.uploadId).to.equal(uploadId);
    expect(second.puts().map((s) => s.range)).to.deep.equal(ranges.slice(2));
    expect(second.sent.filter((s) => s.path === '/v1/data/write/init')).to.have.length(0);
    expect(result.answer.content_hash).to.equal(sha256(content));
  });

  it('opens a new upload when the one to resume is gone', async () => {
    const result = await uploadFile(client(), { path: '/sdk/fresh.bin', content: new Blob([content.subarray(0, 100)]), resumeUploadId: 'up_00000000000000000000000000000000' });
    expect(result.resumed).to.equal(false);
    expect(result.uploadId).not.to.equal('up_00000000000000000000000000000000');
    expect(result.answer.content_hash).to.equal(sha256(content.subarray(0, 100)));
  });

  const faults: Array<{ kind: Fault; title: string; resent: number }> = [
    { kind: 'before', title: 'a network failure before the chunk arrived: that chunk is sent again', resent: 1 },
    { kind: 'after', title: 'a lost answer after the chunk arrived: the status is read and nothing is sent twice', resent: 0 },
    { kind: '503', title: 'a 503: the chunk is retried', resent: 1 },
  ];
  for (const { kind, title, resent } of faults) {
    it(`retries after ${title}`, async () => {
      const wire = recordingFetch({ nth: 3, kind });
      const path = `/sdk/fault-${kind}.bin`;
      const result = await uploadFile(client(wire.fetch), { path, content: new Blob([content]) });
      expect(result.answer.content_hash).to.equal(sha256(content));
      const sentRanges = wire.puts().map((s) => s.range);
      expect(sentRanges).to.have.length(chunks + resent);
      expect(new Set(sentRanges)).to.deep.equal(new Set(ranges));
      // After the failure the SDK asked the server what it holds before sending again.
      const failedAt = wire.sent.indexOf(wire.puts()[2]!);
      expect(wire.sent[failedAt + 1]).to.deep.include({ method: 'GET', path: `/v1/blobs/upload/${result.uploadId}` });
    });
  }

  it('gives up after `retries` consecutive failures with NETWORK_ERROR', async () => {
    const failing: typeof fetch = async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      if (request.method === 'PUT') throw new TypeError('fetch failed');
      return fetch(request);
    };
    const error = await uploadFile(client(failing), { path: '/sdk/unreachable.bin', content: new Blob([content]), retries: 1 }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DataTransferError);
    expect((error as DataTransferError).code).to.equal('NETWORK_ERROR');
    expect((error as DataTransferError).status).to.equal(0);
  });

  it('surfaces a refusal as DataTransferError with the envelope, without retrying', async () => {
    const existing = await uploadFile(client(), { path: '/sdk/taken.txt', content: new Blob(['first']) });
    const wire = recordingFetch();
    const error = await uploadFile(client(wire.fetch), { path: '/sdk/taken.txt', content: new Blob(['second']), precondition: { expected_hash: null } }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(DataTransferError);
    const refusal = error as DataTransferError;
    expect(refusal.code).to.equal('PRECONDITION_FAILED');
    expect(refusal.status).to.equal(409);
    expect(refusal.envelope['current_hash']).to.equal(existing.answer.content_hash);
    expect(refusal.envelope['expected_hash']).to.equal(null);
    expect(wire.sent).to.have.length(1);
  });

  it('reads a blob whole, from an offset, and whole again when If-Range no longer matches', async () => {
    const { answer } = await uploadFile(client(), { path: '/sdk/ranged.bin', content: new Blob([content]) });
    const whole = await readBlobRange(client(), answer.content_hash);
    expect(whole).to.deep.include({ status: 200, start: 0, etag: answer.content_hash });
    expect((await readAll(whole.body)).equals(content)).to.equal(true);

    const tail = await readBlobRange(client(), answer.content_hash, { start: 100_000, ifRange: answer.content_hash });
    expect(tail).to.deep.include({ status: 206, start: 100_000, totalBytes: content.length });
    expect((await readAll(tail.body)).equals(content.subarray(100_000))).to.equal(true);

    const stale = await readBlobRange(client(), answer.content_hash, { start: 100_000, ifRange: 'f'.repeat(64) });
    expect(stale).to.deep.include({ status: 200, start: 0 });
    expect((await readAll(stale.body)).length).to.equal(content.length);

    const past = await readBlobRange(client(), answer.content_hash, { start: content.length }).catch((e: unknown) => e);
    expect(past).to.be.instanceOf(DataTransferError);
    expect((past as DataTransferError).code).to.equal('RANGE_NOT_SATISFIABLE');
  });
});
