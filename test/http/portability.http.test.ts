/**
 * Export, import and online backup over HTTP between two real servers on
 * different drivers (SQLite → LevelDB): the export's framing and checksum,
 * scoped exports, an import that verifies ids and is idempotent, the
 * credentials moving with the log, damaged and cut-short files, and a backup
 * archive whose log copy holds every record and the plugin state.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { extract } from 'tar';
import { TH_NAMESPACE_REGISTRY } from '../../core/records/reserved-threads.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { readBlob, testBytes, uploadFile } from '../helpers/data-plane.js';
import { request } from '../helpers/http-server.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';

const thread = (n: number) => 'th_' + String(n).repeat(64).slice(0, 64);

describe('portability over HTTP: export, import, backup', function () {
  this.timeout(60_000);
  let a: StartedServer;
  let b: StartedServer;
  let adminA: Credential;
  let exported: string;
  const ids: string[] = [];

  before(async () => {
    a = await startServer({ storage: 'sqlite', auth: { required: true } });
    // A fresh target: its first admin comes with the imported log (the import runs as the local operator).
    b = await startServer({ storage: 'level', auth: { required: false } });
    adminA = await bootstrapAdmin(a.url);
    await createAccount(a.url, adminA, 'reader', ['records:read']);
    for (const [clock, namespace] of ['acme', 'acme/web'].entries()) {
      const declared = await request(a.url, 'POST', '/v1/records', {
        headers: bearer(adminA),
        json: { thread: TH_NAMESPACE_REGISTRY, actor: 'did:sync:system:sa_admin', act: 'LEARN', body: { namespace_id: namespace, state: 'active' }, clock, data_type: 'SCALAR' },
      });
      expect(declared.status, declared.text).to.equal(201);
    }
    for (let i = 0; i < 40; i++) {
      const answer = await request(a.url, 'POST', '/v1/records', {
        headers: bearer(adminA),
        json: { thread: i % 4 === 0 ? thread(3) : thread(1 + (i % 2)), actor: `did:sync:agent:w${i % 3}`, act: 'KNOW', body: { i, ...(i % 4 === 0 ? { namespace: 'acme/web' } : {}) }, clock: i, data_type: 'SCALAR' },
      });
      expect(answer.status, answer.text).to.equal(201);
      ids.push(answer.json.id);
    }
    const answer = await request(a.url, 'GET', '/v1/log/export', { headers: bearer(adminA) });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    exported = answer.text;
  });

  after(async () => {
    await a?.stop();
    await b?.stop();
  });

  const lines = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line));

  it('frames the export: a header, every record in sequence order, an end line with the count and SHA-256', async () => {
    const parsed = lines(exported);
    const [header, ...rest] = parsed;
    const trailer = rest.pop();
    expect(header).to.include({ object: 'loom_export', format: 1, backend: 'sqlite' });
    expect(trailer).to.include({ object: 'loom_export_end', records: rest.length });
    const sequences = rest.map((line) => line.sequence);
    expect(sequences).to.deep.equal([...sequences].sort((x, y) => x - y));
    for (const id of ids) expect(rest.some((line) => line.record.id === id)).to.equal(true);
    const body = exported.slice(0, exported.trimEnd().lastIndexOf('\n') + 1);
    expect(trailer.sha256).to.equal(createHash('sha256').update(body).digest('hex'));
  });

  it('exports one thread, one actor, one namespace or a sequence range', async () => {
    const scoped = async (query: string) => {
      const answer = await request(a.url, 'GET', `/v1/log/export?${query}`, { headers: bearer(adminA) });
      expect(answer.status, answer.text).to.equal(200);
      return lines(answer.text).slice(1, -1);
    };
    const byThread = await scoped(`thread=${thread(1)}`);
    // Every fourth record is in acme/web, on a thread of its own (a thread holds one namespace).
    expect(byThread).to.have.length(10);
    expect(byThread.every((line) => line.record.thread === thread(1))).to.equal(true);
    expect((await scoped('actor=did:sync:agent:w0')).every((line) => line.record.actor === 'did:sync:agent:w0')).to.equal(true);
    const acme = await scoped('namespace=acme');
    expect(acme).to.have.length(10);
    const all = lines(exported).slice(1, -1);
    const range = await scoped(`after=${all[4].sequence}&until=${all[9].sequence}`);
    expect(range.map((line) => line.sequence)).to.deep.equal(all.slice(5, 10).map((line) => line.sequence));
    const bad = await request(a.url, 'GET', '/v1/log/export?thread=th_nope', { headers: bearer(adminA) });
    expect(bad.status).to.equal(400);
    expect(bad.json).to.include({ object: 'error', code: 'INVALID_SHAPE' });
  });

  it('imports into another driver, verifying ids, and a second import stores nothing new', async () => {
    const first = await request(b.url, 'POST', '/v1/log/import', { headers: { 'content-type': 'application/x-ndjson' }, body: exported });
    expect(first.status, first.text).to.equal(200);
    const total = lines(exported).length - 2;
    expect(first.json).to.include({ object: 'import_result', records_read: total, records_refused: 0, checksum: 'verified' });
    expect(first.json.records_inserted).to.equal(total);
    for (const id of ids) {
      const got = await request(b.url, 'GET', `/v1/records/${id}`, { headers: bearer(adminA) });
      expect(got.status, got.text).to.equal(200);
    }
    const again = await request(b.url, 'POST', '/v1/log/import', { headers: { ...bearer(adminA), 'content-type': 'application/x-ndjson' }, body: exported });
    expect(again.json).to.include({ records_inserted: 0, records_deduplicated: total, checksum: 'verified' });
  });

  it('moves the credentials with the log: the source admin token works on the target', async () => {
    const answer = await request(b.url, 'GET', `/v1/records/${ids[0]}`, { headers: bearer(adminA) });
    expect(answer.status, answer.text).to.equal(200);
  });

  it('refuses a damaged file with IMPORT_FAILED naming the line, and reports a cut-short one', async () => {
    const damaged = exported.replace('"i":3}', '"i":33}');
    expect(damaged).to.not.equal(exported);
    const refused = await request(b.url, 'POST', '/v1/log/import', { headers: { ...bearer(adminA), 'content-type': 'application/x-ndjson' }, body: damaged });
    expect(refused.status).to.equal(400);
    expect(refused.json).to.include({ object: 'error', code: 'IMPORT_FAILED' });
    expect(refused.json.message).to.match(/^line \d+: the record's content gives the id/);

    const cut = exported.split('\n').slice(0, 10).join('\n') + '\n';
    const partial = await request(b.url, 'POST', '/v1/log/import', { headers: { ...bearer(adminA), 'content-type': 'application/x-ndjson' }, body: cut });
    expect(partial.status, partial.text).to.equal(200);
    expect(partial.json).to.include({ checksum: 'missing', records_read: 9 });

    const notExport = await request(b.url, 'POST', '/v1/log/import', { headers: { ...bearer(adminA), 'content-type': 'application/x-ndjson' }, body: '{"thread":"x"}\n' });
    expect(notExport.status).to.equal(400);
    expect(notExport.json.message).to.match(/^line 1: the first line is not a Loom export header/);
  });

  it('streams an online backup holding the log and the plugin state', async () => {
    const content = testBytes(5000, 7);
    const written = await uploadFile(a.url, '/backup/file.bin', content, { chunkSize: 8 * 1024 * 1024, headers: bearer(adminA) });
    const response = await fetch(`${a.url}/v1/backup`, { method: 'POST', headers: bearer(adminA) });
    expect(response.status).to.equal(200);
    expect(response.headers.get('content-type')).to.equal('application/gzip');
    const watermark = Number(response.headers.get('x-loom-backup-watermark'));
    const dir = await mkdtemp(join(tmpdir(), 'loom-backup-http-'));
    try {
      await writeFile(join(dir, 'backup.tar.gz'), Buffer.from(await response.arrayBuffer()));
      await extract({ file: join(dir, 'backup.tar.gz'), cwd: dir });
      const manifest = JSON.parse(await readFile(join(dir, 'loom-backup.json'), 'utf8'));
      expect(manifest).to.include({ object: 'loom_backup', format: 1, backend: 'sqlite', watermark, store_path: 'store/loom.sqlite' });
      expect(manifest.state).to.include('plugins/data-plane/blobs');
      expect(manifest.state).to.include('instance.json');
      const blob = await readFile(join(dir, 'data', 'plugins', 'data-plane', 'blobs', ...blobPath(written.json.content_hash)));
      expect(blob.equals(content)).to.equal(true);
      const copy = new SqliteRecordStore({ path: join(dir, manifest.store_path), ingestJournal: false });
      await copy.open();
      try {
        expect(await copy.watermark()).to.equal(watermark);
        for (const id of ids) expect(await copy.get(id), id).to.not.equal(undefined);
      } finally {
        await copy.close();
      }
      // The blob is still served by the source (the backup linked it, it did not move it).
      expect((await readBlob(a.url, `/v1/blobs/${written.json.content_hash}`, bearer(adminA))).status).to.equal(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** Where the blob store keeps a hash (its own layout, read from the directory). */
function blobPath(hash: string): string[] {
  return [hash.slice(0, 2), hash];
}
