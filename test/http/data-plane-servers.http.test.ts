/**
 * The data plane on three servers sharing one PostgreSQL log (issue 36: any
 * request to any server). One upload whose init, chunks, progress and
 * completion go to different servers (chunks in parallel); the file read
 * whole and by range from a server that did not store it; a signed URL made
 * on one server served by another (and a tampered one refused there); the
 * upload's parts gone once it completed; and the collector, run on a server
 * that did not store the content, taking it once unreferenced past the grace
 * (and not before); an upload's reservation, re-sent chunk and abort across
 * servers; and completions racing a collection on another server.
 */
import { expect } from 'chai';
import { bearer, bootstrapAdmin } from '../helpers/auth.js';
import { completeWrite, expectRefusal, initWrite, openAndSend, putChunkOf, readBlob, sha256, testBytes, uploadFile, uploadStatus } from '../helpers/data-plane.js';
import { get, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';

const CHUNK = 256 * 1024;
const DAY = 86_400_000;

describe('data plane: three servers on one PostgreSQL log', function () {
  this.timeout(120_000);
  const servers: StartedServer[] = [];
  let now = Date.parse('2026-11-27T08:00:00Z');
  let admin: Record<string, string>;

  before(async function () {
    const databaseUrl = await freshDatabase(await clusterOrSkip(this), 'dataservers');
    for (let i = 0; i < 3; i++) servers.push(await startServer({ storage: 'postgres', databaseUrl, auth: { required: true }, clock: () => now, data: { chunkSizeBytes: CHUNK } }));
    admin = bearer(await bootstrapAdmin(servers[0]!.url));
  });
  after(async () => {
    for (const server of servers.splice(0)) await server.stop();
  });

  it('completes an upload whose chunks landed on different servers; any server serves it, by range and by a signed URL made elsewhere; the collector on another server takes it past the grace', async () => {
    const [one, two, three] = servers as [StartedServer, StartedServer, StartedServer];
    const content = testBytes(5 * CHUNK + 4321, 36);
    const chunks = Math.ceil(content.length / CHUNK);

    const init = await initWrite(one.url, { path: '/reports/big.bin', size_bytes: content.length, content_type: 'application/octet-stream' }, admin);
    expect(init.status, init.text).to.equal(201);
    const uploadId: string = init.json.upload_id;
    // Chunk i goes to server i mod 3, all at once.
    const puts = await Promise.all(Array.from({ length: chunks }, (_, i) => putChunkOf(servers[i % 3]!.url, uploadId, content, CHUNK, i, admin)));
    for (const put of puts) expect(put.status, put.text).to.be.oneOf([200, 201, 204]);
    const progress = await uploadStatus(two.url, uploadId, admin);
    expect(progress.status, progress.text).to.equal(200);
    expect(progress.json.missing_ranges).to.deep.equal([]);

    const done = await completeWrite(three.url, uploadId, admin, sha256(content));
    expect(done.status, done.text).to.equal(200);
    expect(done.json).to.include({ content_hash: sha256(content), size_bytes: content.length, deduplicated: false });
    // The session is over on every server.
    expectRefusal(await uploadStatus(one.url, uploadId, admin), 404, 'UPLOAD_NOT_FOUND');

    // Read whole and by range from servers that did not assemble the file.
    const whole = await readBlob(two.url, `/v1/blobs/${sha256(content)}`, admin);
    expect(whole.status).to.equal(200);
    expect(whole.bytes.equals(content)).to.equal(true);
    const [start, end] = [3 * CHUNK - 100, 4 * CHUNK + 99];
    const ranged = await readBlob(one.url, `/v1/blobs/${sha256(content)}`, { ...admin, range: `bytes=${start}-${end}` });
    expect(ranged.status).to.equal(206);
    expect(ranged.bytes.equals(content.subarray(start, end + 1))).to.equal(true);

    // A signed URL made on server one is served by server three, to a caller with no credential.
    const signed = await request(one.url, 'POST', '/v1/data/read-url', { json: { path: '/reports/big.bin' }, headers: admin });
    expect(signed.status, signed.text).to.equal(200);
    const location = new URL(signed.json.blob_url, one.url);
    const elsewhere = await readBlob(three.url, `${location.pathname}${location.search}`);
    expect(elsewhere.status).to.equal(200);
    expect(elsewhere.bytes.equals(content)).to.equal(true);
    const tampered = new URLSearchParams(location.search);
    tampered.set('expires', String(Number(tampered.get('expires')) + 1));
    expectRefusal(await get(two.url, `${location.pathname}?${tampered.toString()}`), 403, 'SIGNED_URL_INVALID');

    // The upload's parts were dropped with it: the store holds the file once.
    const usage = await get(two.url, '/v1/data/usage', admin);
    expect(usage.status, usage.text).to.equal(200);
    expect(usage.json.blob_store).to.include({ scope: 'shared', blobs: 1, stored_bytes: content.length, live_bytes: content.length, reclaimable_bytes: 0 });

    // Removed through server three; collected by server two once past the grace, not before.
    const removed = await request(three.url, 'POST', '/v1/data/rm', { json: { path: '/reports/big.bin' }, headers: admin });
    expect(removed.status, removed.text).to.equal(200);
    const early = await request(two.url, 'POST', '/v1/data/gc', { json: {}, headers: admin });
    expect(early.status, early.text).to.equal(200);
    expect(early.json).to.include({ collected_blobs: 0, reclaimable_bytes: content.length });
    expect(early.json.kept).to.include({ within_grace: 1 });
    now += DAY;
    // The grace started on server two's run is known to server one (the collector's state is shared).
    const due = await request(one.url, 'POST', '/v1/data/gc', { json: {}, headers: admin });
    expect(due.status, due.text).to.equal(200);
    expect(due.json).to.include({ collected_blobs: 1, freed_bytes: content.length });
    expect((await get(three.url, '/v1/data/usage', admin)).json.blob_store).to.include({ blobs: 0, stored_bytes: 0 });
    expectRefusal(await get(two.url, `/v1/blobs/${sha256(content)}`, admin), 404, 'BLOB_NOT_FOUND');
  });

  it('an upload opened on one server counts against the quota on the others, takes a re-sent chunk anywhere, and is aborted from another server', async () => {
    const [one, two, three] = servers as [StartedServer, StartedServer, StartedServer];
    const content = testBytes(3 * CHUNK, 37);
    const init = await initWrite(two.url, { path: '/drafts/partial.bin', size_bytes: content.length }, admin);
    expect(init.status, init.text).to.equal(201);
    const uploadId: string = init.json.upload_id;
    const reserved = await get(three.url, '/v1/data/usage', admin);
    expect(reserved.json.uploads).to.deep.equal({ open: 1, reserved_bytes: content.length });
    expect((await putChunkOf(one.url, uploadId, content, CHUNK, 0, admin)).status).to.be.below(300);
    // Chunk 0 again, through another server: still one part; chunk 2 elsewhere; chunk 1 missing.
    expect((await putChunkOf(three.url, uploadId, content, CHUNK, 0, admin)).status).to.be.below(300);
    expect((await putChunkOf(two.url, uploadId, content, CHUNK, 2, admin)).status).to.be.below(300);
    const progress = await uploadStatus(three.url, uploadId, admin);
    expect(progress.json.missing_ranges).to.deep.equal([[CHUNK, 2 * CHUNK - 1]]);
    expectRefusal(await completeWrite(one.url, uploadId, admin), 409, 'UPLOAD_INCOMPLETE', { missing_ranges: [[CHUNK, 2 * CHUNK - 1]] });

    const aborted = await request(one.url, 'DELETE', `/v1/blobs/upload/${uploadId}`, { headers: admin });
    expect(aborted.status, aborted.text).to.be.below(300);
    expectRefusal(await uploadStatus(two.url, uploadId, admin), 404, 'UPLOAD_NOT_FOUND');
    expect((await get(two.url, '/v1/data/usage', admin)).json.uploads).to.deep.equal({ open: 0, reserved_bytes: 0 });
    // Its parts went with it.
    expect((await get(three.url, '/v1/data/usage', admin)).json.blob_store).to.include({ blobs: 0, stored_bytes: 0 });
  });

  it('a completion on one server racing a collection of the same content on another always ends with the bytes stored', async () => {
    const [one, two] = servers as [StartedServer, StartedServer];
    const content = testBytes(CHUNK + 5000, 38);
    const hash = sha256(content);
    for (let round = 0; round < 6; round++) {
      // The content is stored and unreferenced, and a new upload of it is ready to complete.
      await uploadFile(one.url, `/race/${round}-old.bin`, content, { chunkSize: CHUNK, headers: admin });
      expect((await request(two.url, 'POST', '/v1/data/rm', { json: { path: `/race/${round}-old.bin` }, headers: admin })).status).to.equal(200);
      const uploadId = await openAndSend(one.url, `/race/${round}.bin`, content, { chunkSize: CHUNK, headers: admin });
      const [done, run] = await Promise.all([completeWrite(one.url, uploadId, admin), request(two.url, 'POST', '/v1/data/gc', { json: { grace_seconds: 0 }, headers: admin })]);
      expect(done.status, done.text).to.equal(200);
      expect(run.status, run.text).to.equal(200);
      const read = await readBlob(two.url, `/v1/blobs/${hash}`, admin);
      expect(read.status, `round ${round}`).to.equal(200);
      expect(read.bytes.equals(content)).to.equal(true);
      expect((await request(one.url, 'POST', '/v1/data/rm', { json: { path: `/race/${round}.bin` }, headers: admin })).status).to.equal(200);
    }
  });
});
