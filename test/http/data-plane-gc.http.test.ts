/**
 * Blob garbage collection over real HTTP (issue 38, defect 4): files of a few
 * MB written, removed and overwritten; `GET /v1/data/usage` shows the bytes
 * as reclaimable; the collector frees them on disk once the grace period has
 * passed (the server's clock moved) or at once with `grace_seconds: 0`, and
 * never takes content another path or another namespace still holds. On
 * SQLite and LevelDB record stores (the blob directory is the server's own)
 * and PostgreSQL (blobs in the database, `scope: 'shared'`). Then, on SQLite: the CLI (`loom data usage`,
 * `loom data gc --grace 0`), who may see and run what, signed URLs of
 * removed content, completions racing a collection of the same content, and
 * a `loom serve` process (its --blob-grace-seconds) killed mid-collection.
 */
import { expect } from 'chai';
import pg from 'pg';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { runLoom } from '../helpers/cli-run.js';
import { completeWrite, expectRefusal, openAndSend, readBlob, sha256, testBytes, uploadFile } from '../helpers/data-plane.js';
import { get, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';

const CHUNK = 1024 * 1024;
const DAY = 86_400_000;

const blobDir = (server: Pick<StartedServer, 'dataDir'>) => join(server.dataDir, 'plugins', 'data-plane', 'blobs');

/** Bytes of the blob files on disk (the shard directories; not tmp/). */
async function blobFileBytes(server: Pick<StartedServer, 'dataDir'>): Promise<number> {
  let total = 0;
  for (const shard of await readdir(blobDir(server))) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue;
    for (const name of await readdir(join(blobDir(server), shard))) total += (await stat(join(blobDir(server), shard, name))).size;
  }
  return total;
}

const ok = (answer: HttpAnswer) => {
  expect(answer.status, answer.text).to.equal(200);
  return answer.json;
};
const usage = async (server: Pick<StartedServer, 'url'>, headers: Record<string, string> = {}, namespace?: string) =>
  ok(await get(server.url, `/v1/data/usage${namespace ? `?namespace=${namespace}` : ''}`, headers));
const collect = async (server: Pick<StartedServer, 'url'>, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) => ok(await request(server.url, 'POST', '/v1/data/gc', { json: body, headers }));
const remove = async (server: Pick<StartedServer, 'url'>, path: string, namespace?: string) => ok(await request(server.url, 'POST', '/v1/data/rm', { json: { path, ...(namespace ? { namespace } : {}) } }));

describe('data plane: blob garbage collection', function () {
  this.timeout(120_000);

  for (const driver of ['sqlite', 'level', 'postgres'] as const) {
    describe(`on ${driver}`, () => {
      let server: StartedServer;
      let databaseUrl: string | null = null;
      const scope = driver === 'postgres' ? 'shared' : 'server';
      /** Bytes of blob content kept: files on disk, or chunk rows of named blobs in PostgreSQL. */
      const blobBytes = async (at: Pick<StartedServer, 'dataDir'>): Promise<number> => {
        if (databaseUrl === null) return blobFileBytes(at);
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        try {
          const { rows } = await client.query<{ n: string }>("SELECT coalesce(sum(octet_length(c.bytes)), 0) AS n FROM loom.blob_chunks c JOIN loom.blobs b ON b.hash = c.owner");
          return Number(rows[0]!.n);
        } finally {
          await client.end();
        }
      };
      let now = Date.parse('2026-11-27T08:00:00Z');
      const big = testBytes(4 * CHUNK + 12_345, 1);
      const shared = testBytes(CHUNK + 777, 2);
      const v1 = testBytes(2 * CHUNK, 3);
      const v2 = testBytes(CHUNK / 2, 4);

      before(async function () {
        if (driver === 'postgres') databaseUrl = await freshDatabase(await clusterOrSkip(this), 'blobgc');
        const store = databaseUrl !== null ? { storage: 'postgres' as const, databaseUrl } : { storage: driver };
        server = await startServer({ ...store, clock: () => now, data: { chunkSizeBytes: CHUNK } });
        // What `loom namespace create team` writes.
        const declared = await request(server.url, 'POST', '/v1/records', {
          json: { thread: 'th_namespace_registry', actor: 'did:sync:user:operator', act: 'LEARN', body: { namespace_id: 'team', state: 'active' }, clock: 0, data_type: 'SCALAR' },
        });
        expect(declared.status, declared.text).to.equal(201);
      });
      after(async () => server?.stop());

      it('a removed file shows as reclaimable, its bytes leave the disk once the grace has passed, and content another path or namespace holds stays', async () => {
        await uploadFile(server.url, '/big.bin', big, { chunkSize: CHUNK });
        await uploadFile(server.url, '/a/shared.bin', shared, { chunkSize: CHUNK });
        const copy = await uploadFile(server.url, '/b/shared-copy.bin', shared, { chunkSize: CHUNK });
        expect(copy.json.deduplicated).to.equal(true);
        await uploadFile(server.url, '/shared.bin', shared, { chunkSize: CHUNK, init: { namespace: 'team' } });
        const before = await usage(server);
        expect(before.blob_store).to.include({ scope, blobs: 2, live_bytes: big.length + shared.length, reclaimable_bytes: 0 });
        expect(await blobBytes(server)).to.equal(big.length + shared.length);

        await remove(server, '/big.bin');
        await remove(server, '/a/shared.bin');
        const removed = await usage(server);
        expect(removed.used_bytes).to.equal(shared.length);
        expect(removed.blob_store).to.include({ stored_bytes: big.length + shared.length, live_bytes: shared.length, reclaimable_bytes: big.length, reclaimable_blobs: 1, grace_seconds: 86_400 });
        // Removed content is served to no one, by bearer or otherwise.
        expectRefusal(await get(server.url, `/v1/blobs/${sha256(big)}`), 404, 'BLOB_NOT_FOUND');

        // Within the grace nothing goes.
        const early = await collect(server);
        expect(early).to.include({ object: 'data_gc', collected_blobs: 0, freed_bytes: 0, reclaimable_bytes: big.length, grace_seconds: 86_400 });
        expect(early.kept).to.deep.equal({ live: 1, within_grace: 1, held: 0 });
        expect(await blobBytes(server)).to.equal(big.length + shared.length);

        now += DAY;
        const due = await collect(server);
        expect(due).to.include({ collected_blobs: 1, freed_bytes: big.length, reclaimable_bytes: 0 });
        expect(await blobBytes(server)).to.equal(shared.length);
        const after = await usage(server);
        expect(after.blob_store).to.include({ blobs: 1, stored_bytes: shared.length, live_bytes: shared.length, reclaimable_bytes: 0 });
        expect(after.blob_store.last_collection).to.include({ collected_blobs: 1, freed_bytes: big.length });

        // The other path still reads its bytes; once it goes too, namespace team still holds them.
        const held = await readBlob(server.url, `/v1/blobs/${sha256(shared)}`);
        expect(held.status).to.equal(200);
        expect(held.bytes.equals(shared)).to.equal(true);
        await remove(server, '/b/shared-copy.bin');
        const now0 = await collect(server, { grace_seconds: 0 });
        expect(now0).to.include({ collected_blobs: 0, grace_seconds: 0 });
        expect(now0.kept.live).to.equal(1);
        expect(await blobBytes(server)).to.equal(shared.length);
        expect((await usage(server, {}, 'team')).used_bytes).to.equal(shared.length);
        expect((await readBlob(server.url, `/v1/blobs/${sha256(shared)}`)).bytes.equals(shared)).to.equal(true);
      });

      it('an overwritten version is reclaimable too; grace 0 frees it at once and keeps the current one', async () => {
        await uploadFile(server.url, '/doc.bin', v1, { chunkSize: CHUNK });
        await uploadFile(server.url, '/doc.bin', v2, { chunkSize: CHUNK });
        const u = await usage(server);
        expect(u.blob_store.reclaimable_bytes).to.equal(v1.length);
        const run = await collect(server, { grace_seconds: 0 });
        expect(run).to.include({ collected_blobs: 1, freed_bytes: v1.length });
        expect(await blobBytes(server)).to.equal(shared.length + v2.length);
        const stat = ok(await get(server.url, '/v1/data/stat?path=/doc.bin'));
        expect(stat.content_hash).to.equal(sha256(v2));
        expect((await readBlob(server.url, `/v1/blobs/${sha256(v2)}`)).bytes.equals(v2)).to.equal(true);
      });
    });
  }

  describe('the CLI, on SQLite', () => {
    let server: StartedServer;
    let root: string;
    before(async () => {
      server = await startServer({ data: { chunkSizeBytes: CHUNK } });
      root = await mkdtemp(join(tmpdir(), 'loom-gc-cli-'));
    });
    after(async () => {
      await server?.stop();
      await rm(root, { recursive: true, force: true });
    });
    const loom = (args: string[]) => runLoom(args, { url: server.url, config: join(root, 'config.json') });

    it('loom data usage shows live and reclaimable bytes (--json: the answer as is); loom data gc --grace 0 frees them', async () => {
      const content = testBytes(3 * CHUNK, 9);
      await uploadFile(server.url, '/report.bin', content, { chunkSize: CHUNK });
      await remove(server, '/report.bin');

      const json = await loom(['data', 'usage', '--json']);
      expect(json.code, json.stderr).to.equal(0);
      expect(JSON.parse(json.stdout).blob_store).to.include({ live_bytes: 0, reclaimable_bytes: content.length, reclaimable_blobs: 1 });
      const human = await loom(['data', 'usage']);
      expect(human.code, human.stderr).to.equal(0);
      expect(human.stdout).to.match(/^live\s+0 bytes$/m);
      expect(human.stdout).to.match(new RegExp(`^reclaimable\\s+${content.length} bytes \\(3\\.0 MiB\\) in 1 blob \\(freed once unreferenced for 24 h; now: loom data gc --grace 0\\)$`, 'm'));

      const gc = await loom(['data', 'gc', '--grace', '0']);
      expect(gc.code, gc.stderr).to.equal(0);
      expect(gc.stdout).to.match(new RegExp(`^collected\\s+1 blob, ${content.length} bytes \\(3\\.0 MiB\\) freed$`, 'm'));
      expect(await blobFileBytes(server)).to.equal(0);
      const gcJson = await loom(['data', 'gc', '--json']);
      expect(JSON.parse(gcJson.stdout)).to.include({ object: 'data_gc', collected_blobs: 0, grace_seconds: 86_400 });
      const bad = await loom(['data', 'gc', '--grace', '-1']);
      expect(bad.code).to.not.equal(0);
    });
  });

  describe('with auth required, on SQLite', () => {
    let server: StartedServer;
    let admin: Credential;
    let alice: Credential;
    before(async () => {
      server = await startServer({ auth: { required: true }, data: { chunkSizeBytes: CHUNK, readUrlSeconds: 3600 } });
      admin = await bootstrapAdmin(server.url);
      alice = await createAccount(server.url, admin, 'alice', ['records:read', 'records:write']);
    });
    after(async () => server?.stop());

    it('only an admin sees the server-wide figures and may collect; a refused collection changes nothing', async () => {
      const content = testBytes(200_000, 11);
      await uploadFile(server.url, '/mine.bin', content, { chunkSize: CHUNK, headers: bearer(alice) });
      expect((await usage(server, bearer(alice))).blob_store).to.equal(null);
      expect((await usage(server, bearer(admin))).blob_store).to.include({ live_bytes: content.length });
      ok(await request(server.url, 'POST', '/v1/data/rm', { json: { path: '/mine.bin' }, headers: bearer(alice) }));
      const watermark = await server.loom.engine.store.watermark();
      expectRefusal(await request(server.url, 'POST', '/v1/data/gc', { json: { grace_seconds: 0 }, headers: bearer(alice) }), 403, 'SCOPE_FORBIDDEN');
      expectRefusal(await request(server.url, 'POST', '/v1/data/gc', { json: { grace_seconds: 0 } }), 401, 'AUTH_REQUIRED');
      expectRefusal(await request(server.url, 'POST', '/v1/data/gc', { json: { grace_seconds: -1 }, headers: bearer(admin) }), 400, 'INVALID_SHAPE');
      expectRefusal(await request(server.url, 'POST', '/v1/data/gc', { json: { grace: 0 }, headers: bearer(admin) }), 400, 'INVALID_SHAPE');
      expect(await blobFileBytes(server)).to.equal(content.length);
      expect(await server.loom.engine.store.watermark()).to.equal(watermark);
      expect(await collect(server, { grace_seconds: 0 }, bearer(admin))).to.include({ collected_blobs: 1, freed_bytes: content.length });
    });

    it('a signed URL reads content while some file holds it, and answers 404 once none does', async () => {
      const content = testBytes(150_000, 12);
      await uploadFile(server.url, '/one.bin', content, { chunkSize: CHUNK, headers: bearer(alice) });
      await uploadFile(server.url, '/two.bin', content, { chunkSize: CHUNK, headers: bearer(alice) });
      const link = ok(await request(server.url, 'POST', '/v1/data/read-url', { json: { path: '/one.bin' }, headers: bearer(alice) }));
      ok(await request(server.url, 'POST', '/v1/data/rm', { json: { path: '/one.bin' }, headers: bearer(alice) }));
      expect((await readBlob(server.url, link.blob_url)).status).to.equal(200);
      ok(await request(server.url, 'POST', '/v1/data/rm', { json: { path: '/two.bin' }, headers: bearer(alice) }));
      const gone = await fetch(link.blob_url);
      expect(gone.status).to.equal(404);
      expect(((await gone.json()) as { code: string }).code).to.equal('BLOB_NOT_FOUND');
      // Not yet collected (within the grace): the refusal is the rule, not the missing file.
      expect(await blobFileBytes(server)).to.equal(content.length);
    });
  });

  describe('completions racing a collection of the same content, on SQLite', () => {
    let server: StartedServer;
    before(async () => {
      server = await startServer({ data: { chunkSizeBytes: 64 * 1024 } });
    });
    after(async () => server?.stop());

    it('a write of content being collected always ends with its bytes on disk', async () => {
      const content = testBytes(300_000, 13);
      const hash = sha256(content);
      for (let round = 0; round < 8; round++) {
        // The content is stored and unreferenced, and a new upload of it is ready to complete.
        await uploadFile(server.url, `/race/${round}-old.bin`, content, { chunkSize: 64 * 1024 });
        await remove(server, `/race/${round}-old.bin`);
        const uploadId = await openAndSend(server.url, `/race/${round}.bin`, content, { chunkSize: 64 * 1024 });
        const [done, run] = await Promise.all([completeWrite(server.url, uploadId), collect(server, { grace_seconds: 0 })]);
        expect(done.status, done.text).to.equal(200);
        expect(run.collected_blobs + run.kept.live + run.kept.held, `round ${round}`).to.equal(1);
        const read = await readBlob(server.url, `/v1/blobs/${hash}`);
        expect(read.status, `round ${round}`).to.equal(200);
        expect(read.bytes.equals(content)).to.equal(true);
        expect(await blobFileBytes(server)).to.equal(content.length);
        await remove(server, `/race/${round}.bin`);
      }
    });
  });

  describe('a loom serve process', () => {
    let proc: LoomProcess | undefined;
    after(async () => {
      await proc?.stop().catch(() => {});
      await proc?.remove();
    });

    it('takes --blob-grace-seconds; killed mid-collection, it restarts with every live file whole and collects the rest', async () => {
      proc = await startLoomProcess({ args: ['--insecure-localhost', '--blob-grace-seconds', '7'] });
      expect((await usage(proc)).blob_store.grace_seconds).to.equal(7);
      const files = Array.from({ length: 12 }, (_, i) => testBytes(20_000 + i, 100 + i));
      for (const [i, content] of files.entries()) await uploadFile(proc.url, `/f/${i}.bin`, content, { chunkSize: 8 * 1024 * 1024 });
      for (let i = 4; i < 12; i++) await remove(proc, `/f/${i}.bin`);
      const live = files.slice(0, 4).reduce((sum, f) => sum + f.length, 0);
      // The collection is asked for and the process killed while it runs (or just after).
      void request(proc.url, 'POST', '/v1/data/gc', { json: { grace_seconds: 0 } }).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 15));
      await proc.kill();

      const dataDir = proc.dataDir;
      proc = await startLoomProcess({ dataDir, args: ['--insecure-localhost'] });
      for (let i = 0; i < 4; i++) {
        const read = await readBlob(proc.url, `/v1/blobs/${sha256(files[i]!)}`);
        expect(read.status, `file ${i}`).to.equal(200);
        expect(read.bytes.equals(files[i]!)).to.equal(true);
      }
      const u = await usage(proc);
      expect(u.blob_store).to.include({ grace_seconds: 86_400, live_bytes: live });
      await collect(proc, { grace_seconds: 0 });
      expect(await blobFileBytes(proc)).to.equal(live);
      expect((await usage(proc)).blob_store).to.include({ reclaimable_bytes: 0, blobs: 4 });
    });
  });
});
