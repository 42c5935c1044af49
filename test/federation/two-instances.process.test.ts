/**
 * Two real Loom processes on loopback: a target pulls 10,000 records from a
 * source through a sync pair, in each feed mode and across storage drivers
 * (continuous SQLite→SQLite, longpoll LevelDB→LevelDB, polling SQLite→LevelDB),
 * and resumes after being killed mid-sync with nothing lost or duplicated.
 */
import { expect } from 'chai';
import { bootstrapAdmin, bearer, createAccount, type Credential } from '../helpers/auth.js';
import { get, mapLimit, newThread, request } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';

const COUNT = 10_000;

interface Source {
  readonly process: LoomProcess;
  readonly did: string;
  readonly peerToken: string;
  readonly ids: Set<string>;
  readonly threads: string[];
}

async function startSource(storage: 'sqlite' | 'level'): Promise<Source> {
  const process = await startLoomProcess({ storage, args: ['--federation'] });
  const admin = await bootstrapAdmin(process.url);
  const writer = await createAccount(process.url, admin, 'writer', ['records:write'], ['did:sync:agent:*']);
  const peer = await createAccount(process.url, admin, 'peer', ['federation:sync', 'federation:subscribe', 'records:read']);
  const threads = [newThread('fed-a'), newThread('fed-b'), newThread('fed-c'), newThread('fed-d')];
  const ids = new Set<string>();
  await mapLimit([...Array(COUNT).keys()], 32, async (i) => {
    const actor = `did:sync:agent:w${i % 8}`;
    const answer = await request(process.url, 'POST', '/v1/records', {
      headers: { ...bearer(writer), 'x-service-actor': actor },
      json: { thread: threads[i % threads.length], actor, act: 'DO', body: { i }, clock: Math.floor(i / 8), data_type: 'SCALAR', parents: [] },
    });
    expect(answer.status, answer.text).to.equal(201);
    ids.add(answer.json.id);
  });
  return { process, did: (await get(process.url, '/health')).json.instance_did, peerToken: peer.token, ids, threads };
}

async function startTarget(storage: 'sqlite' | 'level', dataDir?: string): Promise<{ process: LoomProcess; admin: Credential | null }> {
  const process = await startLoomProcess({ storage, args: ['--federation'], ...(dataDir ? { dataDir } : {}) });
  return { process, admin: dataDir ? null : await bootstrapAdmin(process.url) };
}

/** The source's record ids now stored on the target (read through the target's own feed). */
async function replicatedIds(url: string, admin: Credential, source: Source): Promise<string[]> {
  const found: string[] = [];
  let cursor = '';
  for (;;) {
    const page = await get(url, `/v1/sync/changes?limit=10000${cursor ? `&since=${cursor}` : ''}`, bearer(admin));
    expect(page.status, page.text).to.equal(200);
    for (const entry of page.json.records) if (source.ids.has(entry.id)) found.push(entry.id);
    cursor = page.json.next_cursor;
    if (!page.json.has_more) return found;
  }
}

async function waitForPulled(url: string, admin: Credential, pairId: string, atLeast: number, timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const stats = (await get(url, `/v1/sync/pairs/${pairId}/stats`, bearer(admin))).json;
    if (stats.counters.pulled >= atLeast) return stats;
    if (Date.now() > deadline) {
      const pair = (await get(url, `/v1/sync/pairs/${pairId}`, bearer(admin))).json;
      throw new Error(`pulled ${stats.counters.pulled} of ${atLeast} in ${timeoutMs} ms; pair: ${JSON.stringify(pair)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('federation between two loom processes', function () {
  this.timeout(240_000);
  const sources: Partial<Record<'sqlite' | 'level', Source>> = {};
  const started: LoomProcess[] = [];

  before(async () => {
    sources.sqlite = await startSource('sqlite');
    sources.level = await startSource('level');
    started.push(sources.sqlite.process, sources.level.process);
  });
  after(async () => {
    for (const process of started) {
      await process.stop();
      await process.remove();
    }
  });

  const cases = [
    { mode: 'continuous', from: 'sqlite', to: 'sqlite' },
    { mode: 'longpoll', from: 'level', to: 'level' },
    { mode: 'polling', from: 'sqlite', to: 'level' },
  ] as const;
  for (const { mode, from, to } of cases) {
    it(`replicates ${COUNT} records ${from} → ${to} in ${mode} mode, each exactly once and verified`, async () => {
      const source = sources[from]!;
      const target = await startTarget(to);
      started.push(target.process);
      const created = await request(target.process.url, 'POST', '/v1/sync/pairs', {
        headers: bearer(target.admin!),
        json: { peer_did: source.did, peer_url: source.process.url, peer_token: source.peerToken, mode, poll_interval_ms: 100 },
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.json.warning).to.equal(undefined);
      const stats = await waitForPulled(target.process.url, target.admin!, created.json.pair_id, COUNT, 120_000);
      expect(stats.counters.rejected).to.equal(0);
      const ids = await replicatedIds(target.process.url, target.admin!, source);
      expect(ids).to.have.length(COUNT);
      expect(new Set(ids).size).to.equal(COUNT);
      // Records keep their ids: the content crossed intact (same namespace, L0).
      const sample = [...source.ids][1234]!;
      expect((await get(target.process.url, `/v1/records/${sample}`, bearer(target.admin!))).json.id).to.equal(sample);
      const health = (await get(target.process.url, '/v1/sync/health', bearer(target.admin!))).json;
      // Besides the test records, the source's own visible records (fleet heartbeats) crossed too.
      expect(health.records_pulled_last_hour).to.be.at.least(COUNT);
      expect(health.pairs_by_state.running).to.equal(1);
    });
  }

  it('resumes after the target is killed mid-sync: nothing lost, nothing duplicated', async () => {
    const source = sources.sqlite!;
    let target = await startTarget('sqlite');
    const admin = target.admin!;
    const created = await request(target.process.url, 'POST', '/v1/sync/pairs', {
      headers: bearer(admin),
      json: { peer_did: source.did, peer_url: source.process.url, peer_token: source.peerToken, mode: 'polling', poll_interval_ms: 50 },
    });
    expect(created.status, created.text).to.equal(201);
    await waitForPulled(target.process.url, admin, created.json.pair_id, 2000, 60_000);
    await target.process.kill();
    target = await startTarget('sqlite', target.process.dataDir);
    started.push(target.process);
    // The registry was rebuilt from the lifecycle records, the token and cursor from their files.
    const pair = (await get(target.process.url, `/v1/sync/pairs/${created.json.pair_id}`, bearer(admin))).json;
    expect(pair.pair_id).to.equal(created.json.pair_id);
    const deadline = Date.now() + 120_000;
    let ids: string[] = [];
    while (Date.now() < deadline) {
      ids = await replicatedIds(target.process.url, admin, source);
      if (ids.length >= COUNT) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ids).to.have.length(COUNT);
    expect(new Set(ids).size).to.equal(COUNT);
  });
});
