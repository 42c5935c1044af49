/**
 * The resumption promise, at small scale: an upload whose connection
 * is cut in the middle of a chunk 20 times re-sends at most one chunk per
 * interruption, and the content that lands is byte-identical. The client here
 * is deliberately naive (it asks the server what is missing after each cut),
 * so the bound is the server's doing. On SQLite (the upload's data file) and
 * on PostgreSQL (each chunk a blob of the database, named once whole).
 */
import { expect } from 'chai';
import pg from 'pg';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { get, postJson, startServer, type StartedServer } from '../helpers/http-server.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';

const CHUNK = 64 * 1024;
const CHUNKS = 40;
const INTERRUPTIONS = 20;

/** Sends `bytes` as one PUT; with `cutAfter`, the socket is destroyed after that many body bytes. */
function put(url: string, headers: Record<string, string>, bytes: Buffer, cutAfter?: number): Promise<{ status: number; sent: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'PUT', headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) } }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, sent: bytes.length }));
    });
    if (cutAfter === undefined) {
      req.once('error', reject);
      req.end(bytes);
      return;
    }
    // A cut connection is the point: its error is the expected outcome.
    req.once('error', () => resolve({ status: 0, sent: cutAfter }));
    req.write(bytes.subarray(0, cutAfter), () => setTimeout(() => req.destroy(), 20));
  });
}

for (const driver of ['sqlite', 'postgres'] as const)
describe(`data plane: an upload interrupted 20 times, on ${driver}`, function () {
  this.timeout(60_000);
  let server: StartedServer;
  let databaseUrl: string | null = null;

  before(async function () {
    if (driver === 'postgres') databaseUrl = await freshDatabase(await clusterOrSkip(this), 'interrupted');
    const store = databaseUrl !== null ? { storage: 'postgres' as const, databaseUrl } : {};
    server = await startServer({ ...store, data: { chunkSizeBytes: CHUNK } });
  });
  after(async () => {
    await server?.stop();
  });

  it('re-sends at most one chunk per interruption and stores exactly the content', async () => {
    const content = randomBytes(CHUNK * CHUNKS - 1234);
    const init = await postJson(server.url, '/v1/data/write/init', { path: '/big/interrupted.bin', size_bytes: content.length });
    expect(init.status).to.equal(201);
    const uploadId: string = init.json.upload_id;

    let bodyBytesSent = 0;
    let interruptions = 0;
    for (let round = 0; round < CHUNKS * 3; round++) {
      const status = await get(server.url, `/v1/blobs/upload/${uploadId}`);
      expect(status.status).to.equal(200);
      const missing: Array<[number, number]> = status.json.missing_ranges;
      if (missing.length === 0) break;
      // Send the first missing chunk; every other round (until 20 cuts) cut it half-way.
      const start = missing[0]![0];
      const end = Math.min(start + CHUNK, content.length) - 1;
      const bytes = content.subarray(start, end + 1);
      const cut = interruptions < INTERRUPTIONS && round % 2 === 0 ? Math.floor(bytes.length / 2) : undefined;
      const { status: code, sent } = await put(`${server.url}/v1/blobs/upload/${uploadId}`, { 'content-range': `bytes ${start}-${end}/${content.length}` }, bytes, cut);
      bodyBytesSent += sent;
      if (cut !== undefined) interruptions++;
      else expect(code).to.equal(200);
    }
    expect(interruptions).to.equal(INTERRUPTIONS);
    // Every byte once, plus at most the chunk in flight at each cut.
    expect(bodyBytesSent).to.be.at.most(content.length + INTERRUPTIONS * CHUNK);

    const done = await postJson(server.url, '/v1/data/write/complete', { upload_id: uploadId });
    expect(done.status, done.text).to.equal(200);
    expect(done.json.content_hash).to.equal(createHash('sha256').update(content).digest('hex'));
    const read = await fetch(`${server.url}/v1/blobs/${done.json.content_hash}`);
    expect(Buffer.from(await read.arrayBuffer()).equals(content)).to.equal(true);
    if (databaseUrl !== null) {
      // The cut chunks left nothing half-stored, and the upload's parts went with it: one blob, no staging rows.
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ blobs: number; staging: number; owners: number }>(
          'SELECT (SELECT count(*)::int FROM loom.blobs) AS blobs, (SELECT count(*)::int FROM loom.blob_staging) AS staging, (SELECT count(DISTINCT owner)::int FROM loom.blob_chunks) AS owners',
        );
        expect(rows[0]).to.deep.equal({ blobs: 1, staging: 0, owners: 1 });
      } finally {
        await client.end();
      }
    }
  });
});
