/**
 * `loom backup`/`restore` and `loom export`/`import` against real `loom
 * serve` processes: a backup taken while writers keep writing restores into
 * a server that has every record acknowledged before the backup began (and
 * the data plane's file bytes); a log
 * moves from SQLite to LevelDB and back through export files; a damaged file
 * is refused before anything is imported.
 */
import { expect } from 'chai';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, type Credential } from '../helpers/auth.js';
import { runLoom } from '../helpers/cli-run.js';
import { readBlob, testBytes, uploadFile } from '../helpers/data-plane.js';
import { request } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';

const thread = (n: number) => 'th_' + n.toString(16).padStart(64, '0');

/** Writers posting records until stopped; every 201 is kept with the time it came back. */
function writeLoad(url: string, writers: number, admin: Credential) {
  const acknowledged: Array<{ id: string; at: number }> = [];
  let running = true;
  const loops = Array.from({ length: writers }, async (_, writer) => {
    for (let clock = 0; running; clock++) {
      const answer = await request(url, 'POST', '/v1/records', {
        headers: bearer(admin),
        json: { thread: thread(writer + 1), actor: `did:sync:agent:writer-${writer}`, act: 'KNOW', body: { writer, clock, text: `record ${clock} of writer ${writer}` }, clock, data_type: 'SCALAR' },
      }).catch(() => null);
      if (answer?.status === 201) acknowledged.push({ id: answer.json.id, at: performance.now() });
      else if (answer?.status !== 503) throw new Error(`a writer was refused: ${answer?.status} ${answer?.text}`);
    }
  });
  const failed = Promise.race(loops).then(() => null, (error: unknown) => error);
  return {
    acknowledged,
    /** Resolves once `count` records are acknowledged; rejects if a writer was refused. */
    async reach(count: number) {
      const deadline = Date.now() + 60_000;
      while (acknowledged.length < count) {
        const problem = await Promise.race([failed, new Promise((done) => setTimeout(() => done(null), 20))]);
        if (problem) throw problem;
        if (Date.now() > deadline) throw new Error(`only ${acknowledged.length} of ${count} records acknowledged in 60 s`);
      }
    },
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const recordIds = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .slice(1, -1)
    .map((line) => (JSON.parse(line) as { record: { id: string } }).record.id);

describe('loom backup, restore, export and import', function () {
  this.timeout(180_000);
  let root: string;
  const processes: LoomProcess[] = [];
  const start = async (options: Parameters<typeof startLoomProcess>[0]) => {
    const started = await startLoomProcess(options);
    processes.push(started);
    return started;
  };
  const loom = (args: string[], url = 'http://127.0.0.1:9', token?: string) => runLoom(args, { url, config: join(root, 'config.json'), ...(token ? { token } : {}) });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'loom-cli-portability-'));
  });
  after(async () => {
    for (const started of processes) await started.kill().catch(() => {});
    for (const started of processes) await started.remove().catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  it('restores a backup taken under load with every record acknowledged before it began', async () => {
    const source = await start({ storage: 'sqlite' });
    const admin = await bootstrapAdmin(source.url);
    // Admin only: without a token the refusal is the server's, and nothing is written.
    const anonymous = await loom(['backup', '-o', join(root, 'refused.tar.gz'), '--json'], source.url);
    expect(anonymous.code).to.equal(1);
    expect(JSON.parse(anonymous.stdout)).to.include({ object: 'error', code: 'AUTH_REQUIRED', status: 401 });
    const file = testBytes(100_000, 3);
    const uploaded = await uploadFile(source.url, '/kept/report.bin', file, { chunkSize: 8 * 1024 * 1024, headers: bearer(admin) });
    const load = writeLoad(source.url, 8, admin);
    await load.reach(300);
    const began = performance.now();
    const archive = join(root, 'under-load.tar.gz');
    const backup = await loom(['backup', '-o', archive, '--json'], source.url, admin.token);
    const during = load.acknowledged.length;
    await new Promise((done) => setTimeout(done, 200));
    await load.stop();
    expect(backup.code, backup.stderr).to.equal(0);
    const taken = JSON.parse(backup.stdout);
    expect(taken).to.include({ file: archive });
    // The writers kept going while it was taken.
    expect(load.acknowledged.length).to.be.greaterThan(during);
    const before = load.acknowledged.filter((ack) => ack.at < began).map((ack) => ack.id);
    expect(before.length).to.be.at.least(300);
    const instance = JSON.parse(await readFile(join(source.dataDir, 'instance.json'), 'utf8')).did as string;
    await source.kill();

    const restoredDir = join(root, 'restored');
    const restored = await loom(['restore', archive, '--data-dir', restoredDir, '--json']);
    expect(restored.code, restored.stderr).to.equal(0);
    expect(JSON.parse(restored.stdout)).to.include({ backend: 'sqlite', watermark: taken.watermark, instance });
    const again = await loom(['restore', archive, '--data-dir', restoredDir]);
    expect(again.code).to.equal(2);
    expect(again.stderr).to.contain('is not empty');

    const server = await start({ storage: 'sqlite', dataDir: restoredDir });
    const missing: string[] = [];
    // The admin's token works on the restored server: the credentials came back with the log.
    for (const id of before) if ((await request(server.url, 'GET', `/v1/records/${id}`, { headers: bearer(admin) })).status !== 200) missing.push(id);
    expect(missing, `${missing.length} of ${before.length} acknowledged records missing after restore`).to.deep.equal([]);
    // The data plane's file bytes came back with the log: the file reads as it was written.
    const blob = await readBlob(server.url, `/v1/blobs/${uploaded.json.content_hash}`, bearer(admin));
    expect(blob.status).to.equal(200);
    expect(blob.bytes.equals(file)).to.equal(true);
    const node = await request(server.url, 'GET', '/v1/data/node?path=/kept/report.bin', { headers: bearer(admin) });
    expect(node.status, node.text).to.equal(200);
    await server.stop();
  });

  it('moves a log from SQLite to LevelDB and back through export files, and a second import adds nothing', async () => {
    const source = await start({ storage: 'sqlite' });
    const admin = await bootstrapAdmin(source.url);
    const load = writeLoad(source.url, 3, admin);
    await load.reach(150);
    await load.stop();
    const online = join(root, 'online.ndjson');
    const exported = await loom(['export', '-o', online, '--json'], source.url, admin.token);
    expect(exported.code, exported.stderr).to.equal(0);
    const onlineIds = recordIds(await readFile(online, 'utf8'));
    for (const { id } of load.acknowledged) expect(onlineIds).to.include(id);
    await source.stop();

    const fromSqlite = join(root, 'from-sqlite.ndjson');
    const offline = await loom(['export', '--data-dir', source.dataDir, '--storage', 'sqlite', '-o', fromSqlite, '--json']);
    expect(offline.code, offline.stderr).to.equal(0);
    expect(JSON.parse(offline.stdout).records).to.equal(onlineIds.length);

    const levelDir = join(root, 'level-copy');
    const intoLevel = await loom(['import', fromSqlite, '--data-dir', levelDir, '--storage', 'level', '--json']);
    expect(intoLevel.code, intoLevel.stderr).to.equal(0);
    expect(JSON.parse(intoLevel.stdout)).to.include({ records_read: onlineIds.length, records_refused: 0, checksum: 'verified' });

    const fromLevel = join(root, 'from-level.ndjson');
    expect((await loom(['export', '--data-dir', levelDir, '--storage', 'level', '-o', fromLevel])).code).to.equal(0);
    const levelIds = new Set(recordIds(await readFile(fromLevel, 'utf8')));
    for (const id of onlineIds) expect(levelIds.has(id), id).to.equal(true);

    // A whole log goes into an empty server, imported by its local operator (the credentials come with it).
    const back = await start({ storage: 'sqlite', args: ['--insecure-localhost'] });
    const first = await loom(['import', fromLevel, '--json'], back.url);
    expect(first.code, first.stderr).to.equal(0);
    const result = JSON.parse(first.stdout);
    expect(result).to.include({ records_refused: 0, checksum: 'verified' });
    const second = JSON.parse((await loom(['import', fromLevel, '--json'], back.url)).stdout);
    expect(second).to.include({ records_inserted: 0, records_deduplicated: result.records_read });
    for (const { id } of load.acknowledged.slice(0, 20)) expect((await request(back.url, 'GET', `/v1/records/${id}`, { headers: bearer(admin) })).status).to.equal(200);

    // A damaged file stores nothing: it is checked whole before anything is sent.
    const text = await readFile(fromLevel, 'utf8');
    const damaged = join(root, 'damaged.ndjson');
    await writeFile(damaged, text.replace('"writer":1', '"writer":7'));
    const fresh = await start({ storage: 'sqlite', args: ['--insecure-localhost'] });
    const refused = await loom(['import', damaged], fresh.url);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('is not a complete Loom export');
    const cut = join(root, 'cut.ndjson');
    await mkdir(root, { recursive: true });
    await writeFile(cut, text.split('\n').slice(0, 20).join('\n') + '\n');
    expect((await loom(['import', cut], fresh.url)).stderr).to.contain('cut short');
    const page = await request(fresh.url, 'GET', `/v1/records?thread=${thread(2)}`);
    expect(page.json.data).to.deep.equal([]);
  });
});
