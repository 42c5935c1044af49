/**
 * The find index across restarts (issue 36): a server saves a snapshot of
 * its find index and a restart loads it and indexes only the log after it,
 * answering finds exactly as before; a snapshot cut short is ignored and the
 * index rebuilt from the whole log, with the same answers.
 */
import { rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { get, newThread, postJson, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { until } from '../helpers/until.js';

const SEARCH = { findSnapshotMs: 1 };
const WORDS = ['budget', 'garden', 'release', 'invoice', 'harbour', 'violin', 'glacier', 'pepper', 'lantern', 'orbit'];
const QUERIES = ['budget', 'violin glacier', 'harbour review', 'zeppelin'];

let clock = 0;
async function say(url: string, thread: string, body: Record<string, unknown>): Promise<void> {
  const answer = await request(url, 'POST', '/v1/records', { json: { thread, actor: `did:sync:user:u${clock % 3}`, act: 'KNOW', body, clock: ++clock, data_type: 'SCALAR' } });
  expect(answer.status, answer.text).to.be.oneOf([200, 201]);
}

async function findStats(url: string, ready: (find: any) => boolean): Promise<any> {
  return until('the find index', 15_000, async () => {
    const find = (await get(url, '/v1/search/stats')).json.find;
    return find.pending_records === 0 && find.rebuilding === null && ready(find) ? find : null;
  });
}

const answers = async (url: string) => Promise.all(QUERIES.map(async (q) => (await get(url, `/v1/find?q=${encodeURIComponent(q)}&explain=true`)).json.data));

describe('find index snapshot across restarts (HTTP)', function () {
  this.timeout(60_000);
  let server: StartedServer | null = null;

  afterEach(async () => {
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    server = null;
  });

  it('a restart loads the snapshot and indexes only the tail; a snapshot cut short is rebuilt from the log', async () => {
    server = await startServer({ keepDataDir: true, search: SEARCH });
    const dataDir = server.dataDir;
    const threads = [newThread('plans'), newThread('notes'), newThread('misc')];
    for (let i = 0; i < 60; i++) {
      await say(server.url, threads[i % 3]!, { ...(i % 4 === 0 ? { title: `${WORDS[i % 10]} review ${i}` } : {}), text: `about the ${WORDS[(i * 3) % 10]} and the ${WORDS[(i * 7 + 1) % 10]}` });
    }
    const first = await findStats(server.url, (find) => find.snapshot?.through === find.log_position);
    const before = await answers(server.url);
    expect(before[0]).to.have.length.greaterThan(0);
    await server.stop();

    server = await startServer({ keepDataDir: true, dataDir, search: SEARCH });
    const restored = await findStats(server.url, () => true);
    expect(restored.restored_from_snapshot).to.include({ through: first.log_position });
    expect(restored.restored_from_snapshot.documents).to.deep.equal(first.documents);
    expect(await answers(server.url)).to.deep.equal(before);

    // The tail after the snapshot is indexed as usual.
    await say(server.url, threads[0]!, { title: 'zeppelin budget', text: 'a zeppelin over the harbour' });
    const tail = await findStats(server.url, (find) => find.indexed_through === find.log_position);
    expect(tail.documents.thread).to.equal(first.documents.thread + 1);
    const zeppelin = (await get(server.url, '/v1/find?q=zeppelin')).json.data;
    expect(zeppelin).to.have.length(1);
    const withTail = await answers(server.url);
    await server.stop();

    // Cut short: ignored, rebuilt from the whole log, the same answers.
    const file = join(dataDir, 'plugins', 'search', 'find-snapshot.bin');
    await truncate(file, (await stat(file)).size - 10);
    server = await startServer({ keepDataDir: true, dataDir, search: SEARCH });
    const rebuilt = await findStats(server.url, () => true);
    expect(rebuilt.restored_from_snapshot).to.equal(null);
    expect(await answers(server.url)).to.deep.equal(withTail);
  });

  it('a server stopped before its index caught up saves what it indexed, and the next start goes on from there', async () => {
    // A slow indexer (1% of the time while records arrive, 10 records a slice) behind a stream of batches.
    const slow = { findSnapshotMs: 1, findBusyShare: 0.01, findSliceRecords: 10 };
    server = await startServer({ keepDataDir: true, search: slow });
    const dataDir = server.dataDir;
    const threads = [newThread('plans'), newThread('notes'), newThread('misc')];
    let behind: { indexed_through: number; log_position: number } | null = null;
    for (let batch = 0; batch < 200 && behind === null; batch++) {
      const records = Array.from({ length: 50 }, () => {
        const i = ++clock;
        return { thread: threads[i % 3]!, actor: `did:sync:user:u${i % 3}`, act: 'KNOW', body: { text: `about the ${WORDS[(i * 3) % 10]} and the ${WORDS[(i * 7 + 1) % 10]}` }, clock: i, data_type: 'SCALAR' };
      });
      const answer = await postJson(server.url, '/v1/records/batch', records);
      expect(answer.json.created, answer.text).to.equal(50);
      const find = (await get(server.url, '/v1/search/stats')).json.find;
      if (find.indexed_through > 0 && find.indexed_through < find.log_position - 100) behind = find;
    }
    expect(behind, 'the indexer never fell behind').to.not.equal(null);
    await server.stop();

    server = await startServer({ keepDataDir: true, dataDir, search: SEARCH });
    const resumed = await findStats(server.url, () => true);
    // It went on from where the stopped server had indexed, not from the start of the log.
    expect(resumed.restored_from_snapshot.through).to.be.at.least(behind!.indexed_through).and.below(resumed.log_position);
    const goneOn = await answers(server.url);
    expect(goneOn[0]).to.have.length.greaterThan(0);
    await server.stop();

    // The same answers as an index built from the whole log.
    await rm(join(dataDir, 'plugins', 'search', 'find-snapshot.bin'));
    server = await startServer({ keepDataDir: true, dataDir, search: SEARCH });
    const rebuilt = await findStats(server.url, () => true);
    expect(rebuilt.restored_from_snapshot).to.equal(null);
    expect(rebuilt.documents).to.deep.equal(resumed.documents);
    expect(await answers(server.url)).to.deep.equal(goneOn);
  });
});
