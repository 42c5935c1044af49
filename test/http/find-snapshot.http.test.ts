/**
 * The find index across restarts (issue 36): a server saves a snapshot of
 * its find index and a restart loads it and indexes only the log after it,
 * answering finds exactly as before; a snapshot cut short is ignored and the
 * index rebuilt from the whole log, with the same answers.
 */
import { rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { get, newThread, request, startServer, type StartedServer } from '../helpers/http-server.js';
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
});
