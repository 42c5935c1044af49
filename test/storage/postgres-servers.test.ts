/**
 * Several Loom servers on one PostgreSQL database (a throwaway cluster):
 * - three in-process servers under concurrent HTTP ingest through all of
 *   them: every record appears exactly once, in the same order, on every
 *   server's thread listing, SSE watch and changes feed, and the thread fold
 *   agrees everywhere;
 * - the gapless feed: 16 concurrent writers append 10k records each straight
 *   to the store while a reader follows `changesSince`: nothing skipped or
 *   duplicated;
 * - leadership: exactly one of two `loom serve` processes leads; SIGKILL it
 *   while records that a routing rule dispatches keep arriving: the other
 *   takes over within a bounded time, resumes RECONCILE from the shared
 *   checkpoint, and every record is dispatched exactly once;
 * - portability: a thread exported from a SQLite server imports into a
 *   PostgreSQL one and exports back the same records (backup and restore on
 *   PostgreSQL: nginx-three-servers.process.test.ts).
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePrepared, actorDid, threadId } from '../../storage/compliance/fixtures.js';
import { PostgresRecordStore } from '../../storage/postgres/index.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';
import type { ThrowawayCluster } from '../../storage/postgres/throwaway-cluster.js';
import { bootstrapAdmin, bearer, createAccount } from '../helpers/auth.js';
import { expectEnvelope, get, mapLimit, newThread, postJson, recordInput, request, SseReader, startServer, type StartedServer } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';

describe('several Loom servers on one PostgreSQL database', function () {
  this.timeout(180_000);
  let cluster: ThrowawayCluster;

  before(async function () {
    cluster = await clusterOrSkip(this);
  });

  it('three servers under concurrent ingest: every record once, in one order, on every listing, SSE watch and changes feed', async () => {
    const url = await freshDatabase(cluster, 'three');
    const servers: StartedServer[] = [];
    try {
      for (let i = 0; i < 3; i++) servers.push(await startServer({ storage: 'postgres', databaseUrl: url, federation: {} }));
      const thread = newThread('shared-log');
      const watches = await Promise.all(servers.map((s) => SseReader.open(`${s.url}/v1/threads/${thread}/watch`)));
      const writers = 12;
      const perWriter = 50;
      await mapLimit([...Array(writers).keys()], writers, async (w) => {
        for (let clock = 0; clock < perWriter; clock++) {
          const server = servers[(w + clock) % servers.length]!;
          const answer = await postJson(server.url, '/v1/records', recordInput({ thread, actor: `did:sync:agent:writer-${w}`, clock, body: { w, clock } }));
          expect(answer.status, answer.text).to.equal(201);
        }
      });
      const total = writers * perWriter;

      const listings = await Promise.all(
        servers.map(async (s) => {
          const ids: string[] = [];
          let after = '';
          for (;;) {
            const page = await get(s.url, `/v1/threads/${thread}/records?limit=200${after ? `&after=${after}` : ''}`);
            expect(page.status, page.text).to.equal(200);
            ids.push(...page.json.data.map((r: any) => r.id));
            if (!page.json.has_more) return ids;
            after = page.json.next_cursor;
          }
        }),
      );
      expect(listings[0]).to.have.length(total);
      expect(new Set(listings[0]).size).to.equal(total);
      for (const listing of listings) expect(listing).to.deep.equal(listings[0]);

      for (const watch of watches) {
        await watch.until((r) => r.events.filter((e) => e.event === 'record').length >= total, 30_000, 'every record on the watch');
        const events = watch.events.filter((e) => e.event === 'record');
        expect(events.map((e) => JSON.parse(e.data).id)).to.deep.equal(listings[0]);
        const sequences = events.map((e) => Number(e.id));
        expect(sequences).to.deep.equal([...sequences].sort((a, b) => a - b));
        watch.close();
      }

      const feeds = await Promise.all(
        servers.map(async (s) => {
          const ids: string[] = [];
          let since = '';
          for (;;) {
            const page = await get(s.url, `/v1/sync/changes?thread=${thread}&limit=500${since ? `&since=${since}` : ''}`);
            expect(page.status, page.text).to.equal(200);
            ids.push(...page.json.records.map((e: any) => e.id));
            if (!page.json.has_more) return ids;
            since = page.json.next_cursor;
          }
        }),
      );
      for (const feed of feeds) expect(feed).to.deep.equal(listings[0]);

      const states = await Promise.all(servers.map(async (s) => (await get(s.url, `/v1/threads/${thread}/state`)).json.value));
      for (const state of states) expect(state).to.deep.equal(states[0]);
      expect(Object.keys(states[0].actor_clocks)).to.have.length(writers);

      const health = await Promise.all(servers.map(async (s) => (await get(s.url, '/health')).json.storage));
      for (const h of health) expect(h).to.include({ backend: 'postgres', shared_log: true });
      expect(health.filter((h) => h.leader), 'exactly one leader').to.have.length(1);
      // Re-credential challenges live in the store's slots: every server answers the door, leader or not
      // (here 409: no passkey relying party is declared; test/storage/postgres-shared-credentials.test.ts goes further).
      for (const server of servers) {
        expectEnvelope(await postJson(server.url, '/v1/recredential/challenge', { principal: 'did:sync:user:someone', kind: 'passkey' }), 409, 'PASSKEY_NOT_ACCEPTED');
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  });

  it('a log moves from SQLite into PostgreSQL through an export file and exports back the same', async () => {
    const url = await freshDatabase(cluster, 'portability');
    const sqlite = await startServer({ storage: 'sqlite' });
    const pg = await startServer({ storage: 'postgres', databaseUrl: url });
    try {
      const thread = newThread('move');
      for (let clock = 0; clock < 50; clock++) {
        expect((await postJson(sqlite.url, '/v1/records', recordInput({ thread, actor: 'did:sync:agent:mover', clock, body: { clock, text: 'quote " and ünïcödé' } }))).status).to.equal(201);
      }
      const exported = await get(sqlite.url, `/v1/log/export?thread=${thread}`);
      expect(exported.status, exported.text).to.equal(200);
      const imported = await request(pg.url, 'POST', '/v1/log/import', { body: exported.text, headers: { 'content-type': 'application/x-ndjson' } });
      expect(imported.status, imported.text).to.equal(200);
      expect(imported.json).to.include({ records_read: 50, records_inserted: 50, records_refused: 0, checksum: 'verified' });
      const back = await get(pg.url, `/v1/log/export?thread=${thread}`);
      const records = (text: string) => text.trimEnd().split('\n').slice(1, -1).map((line) => JSON.stringify(JSON.parse(line).record));
      expect(records(back.text)).to.deep.equal(records(exported.text));
    } finally {
      await sqlite.stop();
      await pg.stop();
    }
  });

  it("a data-plane compare-and-swap holds across servers: of two racing moves of one directory, exactly one wins", async () => {
    const url = await freshDatabase(cluster, 'cas');
    const servers: StartedServer[] = [];
    try {
      for (let i = 0; i < 2; i++) servers.push(await startServer({ storage: 'postgres', databaseUrl: url }));
      const rounds = 15;
      for (let round = 0; round < rounds; round++) {
        expect((await postJson(servers[round % 2]!.url, '/v1/data/mkdir', { path: `/race-${round}/src` })).status).to.equal(200);
      }
      const outcomes = await Promise.all(
        [...Array(rounds).keys()].flatMap((round) => [0, 1].map(async (i) => (await postJson(servers[i]!.url, '/v1/data/mv', { from: `/race-${round}/src`, to: `/race-${round}/dst-${i}` })).status)),
      );
      for (let round = 0; round < rounds; round++) {
        const pair = [outcomes[2 * round], outcomes[2 * round + 1]].sort();
        expect(pair, `round ${round}`).to.deep.equal([200, 404]);
      }
      // Both servers see the same tree: each race left exactly one destination.
      for (const server of servers) {
        for (let round = 0; round < rounds; round++) {
          const listing = await get(server.url, `/v1/data/list?path=/race-${round}`);
          expect(listing.status, listing.text).to.equal(200);
          expect(listing.json.entries, `round ${round} on ${server.url}`).to.have.length(1);
        }
      }
    } finally {
      for (const server of servers) await server.stop();
    }
  });

  it('the changes feed is gapless: 16 writers × 10,000 appends with a live reader, nothing skipped or duplicated', async () => {
    const url = await freshDatabase(cluster, 'gapless');
    // Four stores (four "servers") with four writers each, and a reader on a fifth.
    const stores = await Promise.all([...Array(5).keys()].map(async () => {
      const store = new PostgresRecordStore({ connectionString: url, poolSize: 6 });
      await store.open();
      return store;
    }));
    try {
      const writers = 16;
      const perWriter = 10_000;
      const reader = stores[4]!;
      let done = false;
      const seen: number[] = [];
      const follow = (async () => {
        let after = 0;
        for (;;) {
          const page = await reader.changesSince(after, 5000);
          for (const stored of page) {
            seen.push(stored.sequence);
            after = stored.sequence;
          }
          if (page.length === 0) {
            if (done && after >= (await reader.watermark())) return;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
      })();
      await Promise.all(
        [...Array(writers).keys()].map(async (w) => {
          const store = stores[w % 4]!;
          const actor = actorDid(`gapless-${w}`);
          for (let clock = 0; clock < perWriter; clock += 50) {
            const batch = Array.from({ length: 50 }, (_, i) => makePrepared({ thread: threadId(`gapless-${w % 8}`), actor, clock: clock + i, body: { w } }));
            const outcomes = await store.appendMany(batch);
            for (const o of outcomes) if (o.status !== 'inserted') throw new Error(`unexpected ${o.status}`);
          }
        }),
      );
      done = true;
      await follow;
      const total = writers * perWriter;
      expect(seen).to.have.length(total);
      expect(seen.every((sequence, i) => sequence === i + 1), 'the reader saw 1, 2, … N in order').to.equal(true);
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it('one of two loom serve processes leads; SIGKILL it mid-stream: the other takes over and every record is dispatched exactly once', async () => {
    const url = await freshDatabase(cluster, 'leader');
    const dirs = await Promise.all([0, 1].map(() => mkdtemp(join(tmpdir(), 'loom-pg-server-'))));
    const processes: LoomProcess[] = [];
    const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    try {
      for (const dir of dirs) processes.push(await startLoomProcess({ dataDir: dir, storage: 'postgres', args: ['--database-url', url] }));
      const leaders = async () => Promise.all(processes.map(async (p) => (await get(p.url, '/health')).json.storage.leader as boolean));
      let state = await leaders();
      for (let i = 0; i < 50 && state.filter(Boolean).length !== 1; i++) {
        await wait(100);
        state = await leaders();
      }
      expect(state.filter(Boolean)).to.have.length(1);
      const leader = state.indexOf(true);
      const follower = 1 - leader;

      // Accounts and the routing rule are records: made on one server, in force on both.
      const admin = await bootstrapAdmin(processes[follower]!.url);
      const writer = await createAccount(processes[follower]!.url, admin, 'writer', ['records:write'], ['did:sync:agent:*']);
      const rule = await request(processes[follower]!.url, 'POST', '/v1/config/routing_rule', {
        headers: bearer(admin),
        json: { name: 'route-lane', expression: 'has(record.body.lane)', target: 'did:sync:agent:worker', priority: 1 },
      });
      expect(rule.status, rule.text).to.equal(201);

      const sources: string[] = [];
      let killed = false;
      const writeOne = async (i: number) => {
        const actor = `did:sync:agent:w${i % 4}`;
        // Before the kill, both servers take writes; after it, only the survivor.
        const target = killed ? processes[follower]! : processes[i % 2]!;
        const answer = await request(target.url, 'POST', '/v1/records', {
          headers: { ...bearer(writer), 'x-service-actor': actor },
          json: { thread: newThread('lane'), actor, act: 'DO', body: { lane: 'fast', i }, clock: 0, data_type: 'SCALAR', parents: [] },
        });
        if (answer.status === 201) sources.push(answer.json.id);
        else if (!killed || target !== processes[leader]) expect(answer.status, answer.text).to.equal(201);
      };
      for (let i = 0; i < 60; i++) await writeOne(i);
      await processes[leader]!.kill();
      killed = true;
      const killedAt = Date.now();
      for (let i = 60; i < 120; i++) await writeOne(i);

      let takenOver = false;
      while (Date.now() - killedAt < 15_000) {
        if ((await get(processes[follower]!.url, '/health')).json.storage.leader) {
          takenOver = true;
          break;
        }
        await wait(100);
      }
      expect(takenOver, 'the follower leads within 15 s').to.equal(true);

      // Counted from the log itself (the dispatches fold lists only the last 100 closed).
      const dispatchesOf = async () => {
        const answer = await request(processes[follower]!.url, 'POST', '/v1/records/query', { headers: bearer(admin), json: { filter: { 'body.kind': 'core.dispatch.v1' }, limit: 1000 } });
        expect(answer.status, answer.text).to.equal(200);
        return (answer.json.data as Array<{ body: { source: string } }>).map((record) => ({ source: record.body.source }));
      };
      let dispatched = await dispatchesOf();
      for (let i = 0; i < 150 && new Set(dispatched.map((d) => d.source)).size < sources.length; i++) {
        await wait(100);
        dispatched = await dispatchesOf();
      }
      const engineHealth = (await get(processes[follower]!.url, '/v1/engine/health', bearer(admin))).text;
      const perSource = new Map<string, number>();
      for (const d of dispatched) perSource.set(d.source, (perSource.get(d.source) ?? 0) + 1);
      expect(sources.flatMap((id, i) => (perSource.get(id) === 1 ? [] : [`#${i}: ${perSource.get(id) ?? 0} dispatches`])), `records not dispatched exactly once; leader was ${leader}; follower engine: ${engineHealth}`).to.deep.equal([]);
      expect(perSource.size).to.equal(sources.length);
    } finally {
      for (const p of processes) await p.stop().catch(() => undefined);
      for (const dir of dirs) await rm(dir, { recursive: true, force: true });
    }
  });
});
