/**
 * Federation over real HTTP on 127.0.0.1, in-process servers: identity and
 * manifest, the changes feed (cursors, gaplessness under concurrent ingest,
 * filtered pages that still move, longpoll, continuous), consent and hash
 * levels, bearer visibility, record transfer refusals, conflicts, and the
 * sync pair routes. Replication between separate processes is in
 * two-instances.process.test.ts.
 */
import { expect } from 'chai';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { bootstrapAdmin, bearer, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, mapLimit, newThread, postJson, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { InstanceKey, pageProblem, signRecord, verifyManifest, type SyncPage } from '../../plugins/federation/index.js';
import { buildFederationManifest, signManifest } from '../../plugins/federation/manifest.js';
import { TH_CONSENT, TH_FEDERATION_PAIRS } from '../../core/records/reserved-threads.js';
import { computeRecordId } from '../../core/records/record-id.js';
import { makeRecord, type LoomRecord } from '../../core/records/record.js';

async function did(url: string): Promise<string> {
  return (await get(url, '/health')).json.instance_did as string;
}

async function grant(url: string, headers: Record<string, string>, body: Record<string, unknown>, clock: number) {
  return request(url, 'POST', '/v1/records', {
    headers,
    json: { thread: TH_CONSENT, actor: 'did:sync:user:operator', act: 'LEARN', body: { kind: 'core.consent.grant.v1', ...body }, clock, data_type: 'SCALAR', parents: [] },
  });
}

/** Every entry of the feed from the start, page by page. */
async function drain(url: string, query: string, headers: Record<string, string> = {}): Promise<{ entries: any[]; cursor: string; pages: number }> {
  const entries: any[] = [];
  let cursor = '';
  let pages = 0;
  for (;;) {
    const answer = await get(url, `/v1/sync/changes?limit=500${query}${cursor ? `&since=${cursor}` : ''}`, headers);
    expect(answer.status, answer.text).to.equal(200);
    pages++;
    entries.push(...answer.json.records);
    cursor = answer.json.next_cursor;
    if (!answer.json.has_more) return { entries, cursor, pages };
  }
}

/** Declares namespaces on th_namespace_registry (one declaring actor per call site). */
async function declareNamespaces(url: string, headers: Record<string, string>, actor: string, namespaces: readonly string[]): Promise<void> {
  for (const [clock, namespace_id] of namespaces.entries()) {
    const answer = await request(url, 'POST', '/v1/records', { headers, json: { thread: 'th_namespace_registry', actor, act: 'LEARN', body: { namespace_id }, clock, data_type: 'SCALAR', parents: [] } });
    expect(answer.status, answer.text).to.equal(201);
  }
}

function signedRecord(key: InstanceKey, fields: Partial<LoomRecord>): LoomRecord & { sig: unknown } {
  const content = { parents: [], thread: newThread('fed'), actor: 'did:sync:user:remote', act: 'DO' as const, body: {}, clock: 0, data_type: 'SCALAR' as const, judged_by: null, ...fields };
  const record = makeRecord(computeRecordId(content), content);
  return { ...record, sig: signRecord(key, record) };
}

describe('federation over HTTP', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let instanceDid: string;

  before(async () => {
    server = await startServer({ federation: { heartbeatMs: 100, longpollTimeoutMs: 3000 } });
    instanceDid = await did(server.url);
    await declareNamespaces(server.url, {}, 'did:sync:user:ns-admin', ['acme', 'beta', 'hidden-ns', 'elsewhere']);
  });
  after(async () => server.stop());

  describe('identity and manifest', () => {
    it('the instance DID is the did:key of a 0600 key file, and the served manifest verifies against it', async () => {
      expect(instanceDid).to.match(/^did:key:z6Mk/);
      const file = join(server.dataDir, 'plugins', 'federation', 'instance-key');
      expect((await stat(file)).mode & 0o777).to.equal(0o600);
      expect((await InstanceKey.loadOrCreate(join(server.dataDir, 'plugins', 'federation'))).did).to.equal(instanceDid);
      const discovery = await get(server.url, '/.well-known/service');
      const verdict = verifyManifest(discovery.json.federation_manifest, { now: Date.now(), strict: true, expectedDid: instanceDid });
      expect(verdict.ok, JSON.stringify(verdict)).to.equal(true);
      const expires = Date.parse(discovery.json.federation_manifest.signature.expires_at);
      expect(expires - Date.now()).to.be.within(6.9 * 86_400_000, 7 * 86_400_000);
      const health = await get(server.url, '/health');
      expect(health.json.federation).to.include({ enabled: true });
      const manifest = (await get(server.url, '/v1/capabilities')).json;
      expect(JSON.stringify(manifest)).to.include('federation');
    });

    it('a server without federation serves no manifest and no sync routes', async () => {
      const plain = await startServer();
      try {
        expect((await get(plain.url, '/.well-known/service')).json.federation_manifest).to.equal(undefined);
        expect((await get(plain.url, '/v1/sync/changes')).status).to.equal(404);
      } finally {
        await plain.stop();
      }
    });
  });

  describe('the changes feed', () => {
    it('pages with opaque cursors, a page signature that verifies, and refuses a forged cursor', async () => {
      const thread = newThread('feed');
      for (let clock = 0; clock < 30; clock++) expect((await postJson(server.url, '/v1/records', recordInput({ thread, clock, body: { n: clock } }))).status).to.equal(201);
      const first = await get(server.url, `/v1/sync/changes?thread=${thread}&limit=10`);
      expect(first.json.records).to.have.length(10);
      expect(first.json.has_more).to.equal(true);
      expect(first.json.records.map((e: any) => e.record.body.n)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(pageProblem(first.json as SyncPage, instanceDid)).to.equal(null);
      const altered = { ...first.json, records: first.json.records.slice(1) };
      expect(pageProblem(altered, instanceDid)).to.match(/does not verify/);
      const all = await drain(server.url, `&thread=${thread}`);
      expect(all.entries.map((e: any) => e.record.body.n)).to.deep.equal([...Array(30).keys()]);
      for (const entry of all.entries) expect(entry.hash_level).to.equal('L0');
      expectEnvelope(await get(server.url, '/v1/sync/changes?since=bm90LWEtY3Vyc29y'), 400, 'INVALID_CURSOR');
      // Past its maximum the limit is clamped (spec §8), as everywhere; a limit that is not a number is refused.
      const clamped = await get(server.url, '/v1/sync/changes?limit=10001');
      expect(clamped.status, clamped.text).to.equal(200);
      expectEnvelope(await get(server.url, '/v1/sync/changes?limit=lots'), 400, 'INVALID_SHAPE');
    });

    it("never serves this instance's configuration: a peer that stored it would take it for its own", async () => {
      const written = await postJson(server.url, '/v1/config/federation.relay', { url: 'http://relay.example', for_pair: 'all', poll_interval_ms: 200 });
      expect(written.status, written.text).to.equal(201);
      expect((await drain(server.url, '&thread=th_engine_config')).entries).to.deep.equal([]);
      const everything = await drain(server.url, '');
      expect(everything.entries.filter((e: any) => ['th_engine_config', 'th_fleet_control', 'th_instance_registry'].includes(e.record.thread))).to.deep.equal([]);
      const byId = await postJson(server.url, '/v1/sync/records', { ids: [written.json.id] });
      expect(byId.json.missing).to.have.length(1);
    });

    it('never serves the member registry or members\' memories: they are the instance\'s own', async () => {
      const defined = await postJson(server.url, '/v1/actors/define', { label: 'local only', work_loop: { model: 'gpt-5' } });
      expect(defined.status, defined.text).to.equal(201);
      expect((await get(server.url, `/v1/records/${defined.json.definition}`)).status).to.equal(200);
      const served = await drain(server.url, '&thread=th_actor_registry');
      expect(served.entries).to.deep.equal([]);
      // A member's memories are its instance's own too.
      const memory = await postJson(server.url, `/v1/actors/${defined.json.actor_did}/memories`, { name: 'style', memory_type: 'feedback', description: 'short answers' });
      expect(memory.status, memory.text).to.equal(201);
      const everything = await drain(server.url, '');
      expect(everything.entries.filter((e: any) => e.record.thread === 'th_actor_registry' || e.record.body.kind === 'core.actor.memory.v1')).to.deep.equal([]);
      expect(everything.entries.length).to.be.above(0);
      const byId = await postJson(server.url, '/v1/sync/records', { ids: [defined.json.definition, memory.json.record] });
      expect(byId.json.missing).to.have.members([defined.json.definition, memory.json.record]);
    });

    it('is gapless under concurrent ingest: a reader following the feed sees every record exactly once', async () => {
      const thread = newThread('gapless');
      const seen: string[] = [];
      let cursor = (await drain(server.url, `&thread=${thread}`)).cursor;
      let writing = true;
      const reader = (async () => {
        while (writing || seen.length < 2000) {
          const page = await get(server.url, `/v1/sync/changes?thread=${thread}&limit=97&since=${cursor}`);
          seen.push(...page.json.records.map((e: any) => e.id));
          cursor = page.json.next_cursor;
          if (!writing && !page.json.has_more && seen.length >= 2000) break;
          if (!page.json.has_more) await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const writers = [...Array(8).keys()];
      await mapLimit(writers, 8, async (w) => {
        for (let clock = 0; clock < 250; clock++) {
          const answer = await postJson(server.url, '/v1/records', recordInput({ thread, actor: `did:sync:agent:writer-${w}`, clock, body: { w, clock } }));
          expect(answer.status).to.equal(201);
        }
      });
      writing = false;
      await reader;
      expect(seen).to.have.length(2000);
      expect(new Set(seen).size).to.equal(2000);
    });

    it('a feed that withholds everything still moves its cursor to the end', async () => {
      const before = await drain(server.url, '');
      const thread = newThread('withheld');
      for (let clock = 0; clock < 40; clock++) expect((await postJson(server.url, '/v1/records', recordInput({ thread, clock, body: { namespace: 'hidden-ns', n: clock } }))).status).to.equal(201);
      const page = await get(server.url, `/v1/sync/changes?target_namespace=elsewhere&limit=10&since=${before.cursor}`);
      expect(page.json.records).to.deep.equal([]);
      expect(page.json.has_more).to.equal(false);
      const after = await drain(server.url, '', {});
      expect(page.json.next_cursor).to.equal(after.cursor);
    });

    it('longpoll holds until a record arrives, and answers an empty page that moves at the timeout', async () => {
      const thread = newThread('longpoll');
      const { cursor } = await drain(server.url, `&thread=${thread}`);
      const started = Date.now();
      const waiting = get(server.url, `/v1/sync/changes?thread=${thread}&feed=longpoll&since=${cursor}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await postJson(server.url, '/v1/records', recordInput({ thread, body: { late: true } }));
      const answer = await waiting;
      expect(answer.json.records.map((e: any) => e.record.body)).to.deep.equal([{ late: true }]);
      expect(Date.now() - started, 'answered before the 3 s timeout').to.be.below(2900);
      const idle = await get(server.url, `/v1/sync/changes?thread=${thread}&feed=longpoll&since=${answer.json.next_cursor}`);
      expect(idle.json.records).to.deep.equal([]);
      expect(Date.now() - started).to.be.above(3000);
    });

    it('continuous: events carry signed pages, the event id is the cursor, and idle heartbeats move it', async () => {
      const thread = newThread('sse');
      const { cursor } = await drain(server.url, `&thread=${thread}`);
      const controller = new AbortController();
      const answer = await fetch(`${server.url}/v1/sync/changes?thread=${thread}&feed=continuous&since=${cursor}`, { signal: controller.signal });
      expect(answer.headers.get('content-type')).to.match(/text\/event-stream/);
      const decoder = new TextDecoder();
      let text = '';
      const reader = answer.body!.getReader();
      await postJson(server.url, '/v1/records', recordInput({ thread, body: { live: 1 } }));
      await postJson(server.url, '/v1/records', recordInput({ thread: newThread('other'), body: { elsewhere: true } }));
      while (!/event: changes[\s\S]*event: heartbeat/.test(text)) text += decoder.decode((await reader.read()).value, { stream: true });
      controller.abort();
      const changes = /id: (\S+)\nevent: changes\ndata: (.*)\n/.exec(text)!;
      const page = JSON.parse(changes[2]!) as SyncPage;
      expect(page.records.map((e) => e.record.body)).to.deep.equal([{ live: 1 }]);
      expect(changes[1]).to.equal(page.next_cursor);
      expect(pageProblem(page, instanceDid)).to.equal(null);
      const heartbeat = /id: (\S+)\nevent: heartbeat\ndata: (.*)\n/.exec(text)!;
      expect(JSON.parse(heartbeat[2]!).records).to.deep.equal([]);
    });
  });

  describe('consent', () => {
    it('no grant: nothing crosses; a grant at L2: only the L2 projection crosses; L0 needs two-sided consent', async () => {
      const thread = newThread('consent');
      expect((await postJson(server.url, '/v1/records', recordInput({ thread, actor: 'did:sync:user:carol', body: { namespace: 'acme', secret: 'launch codes', kind: 'acme.plan.v1' } }))).status).to.equal(201);
      const query = `&thread=${thread}&target_namespace=beta`;
      expect((await drain(server.url, query)).entries).to.deep.equal([]);

      expect((await grant(server.url, {}, { source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L2'] }, 0)).status).to.equal(201);
      const [l2] = (await drain(server.url, query)).entries;
      expect(l2.hash_level).to.equal('L2');
      expect(JSON.stringify(l2)).to.not.include('launch codes');
      expect(JSON.stringify(l2)).to.not.include('carol');
      expect(l2.record.body).to.include({ redacted: true, hash_level: 'L2', namespace: 'acme', kind: 'acme.plan.v1' });
      expect(l2.record.body).to.not.have.property('shape');
      expect(l2.id).to.equal(computeRecordId(l2.record));

      expect((await grant(server.url, {}, { source_namespace: 'acme', target_namespace: 'beta', hash_levels: ['L0'] }, 1)).status).to.equal(201);
      expect((await drain(server.url, query)).entries[0].hash_level, 'one-sided L0 degrades').to.equal('L1');
      expect((await grant(server.url, {}, { source_namespace: 'beta', target_namespace: 'acme', hash_levels: ['L0'] }, 2)).status).to.equal(201);
      const [l0] = (await drain(server.url, query)).entries;
      expect(l0.hash_level).to.equal('L0');
      expect(l0.record.body.secret).to.equal('launch codes');
      expectEnvelope(await grant(server.url, {}, { source_namespace: 'acme' }, 3), 400, 'INVALID_SHAPE');
    });
  });

  describe('record transfer', () => {
    let key: InstanceKey;
    before(() => {
      key = InstanceKey.fromSeed(new Uint8Array(32).fill(7));
    });
    const push = (records: unknown[], federated = true) =>
      request(server.url, 'POST', '/v1/sync/records', { json: { records }, headers: federated ? { 'x-service-federation': '1' } : {} });

    it('stores signed records with their origin, deduplicates replays, and fetches by id', async () => {
      const record = signedRecord(key, { body: { pushed: true } });
      const first = await push([record]);
      expect(first.status, first.text).to.equal(201);
      expect(first.json.accepted).to.deep.equal([record.id]);
      const replay = await push([record]);
      expect(replay.json.accepted).to.deep.equal([]);
      expect(replay.json.deduplicated).to.deep.equal([record.id]);
      const fetched = await postJson(server.url, '/v1/sync/records', { ids: [record.id, 'f'.repeat(64)] });
      expect(fetched.json.records[0].origin).to.equal(key.did);
      expect(fetched.json.records[0].record.body).to.deep.equal({ pushed: true });
      expect(fetched.json.missing).to.deep.equal(['f'.repeat(64)]);
    });

    it('refuses, counts and never stores: unsigned under the header, a wrong signature, a tampered body', async () => {
      const before = (await get(server.url, '/v1/sync/health')).json.pushed;
      const good = signedRecord(key, { body: { n: 1 } });
      const unsigned = signedRecord(key, { body: { n: 2 } });
      delete (unsigned as unknown as Record<string, unknown>)['sig'];
      expectEnvelope(await push([good, unsigned]), 422, 'FEDERATION_SIGNATURE_REQUIRED');
      const other = InstanceKey.fromSeed(new Uint8Array(32).fill(9));
      const wrong = { ...signedRecord(key, { body: { n: 3 } }) };
      wrong.sig = { ...signRecord(other, wrong as LoomRecord), signer: key.did };
      expectEnvelope(await push([wrong]), 422, 'FEDERATION_SIGNATURE_INVALID');
      const tampered = signedRecord(key, { body: { n: 4 } });
      const altered = { ...tampered, body: { n: 40 } };
      expectEnvelope(await push([altered]), 422, 'FEDERATION_SIGNATURE_INVALID');
      for (const record of [good, unsigned, wrong, tampered]) expect((await get(server.url, `/v1/records/${record.id}`)).status).to.equal(404);
      const after = (await get(server.url, '/v1/sync/health')).json.pushed;
      expect(after.rejected - before.rejected).to.equal(4);
      expect(after.rejected_by_reason.unsigned).to.be.at.least(2);
      expect(after.rejected_by_reason.signature_invalid).to.be.at.least(2);
    });

    it('a record conflicting with a local one (same actor, thread, clock) is quarantined and reported, not dropped or stored', async () => {
      const thread = newThread('conflict');
      const local = await postJson(server.url, '/v1/records', recordInput({ thread, actor: 'did:sync:user:dana', clock: 5, body: { here: true } }));
      expect(local.status).to.equal(201);
      const remote = signedRecord(key, { thread, actor: 'did:sync:user:dana', clock: 5, body: { there: true } });
      const answer = await push([remote]);
      expect(answer.json.conflicts).to.deep.equal([{ id: remote.id, existing_id: local.json.id }]);
      expect((await get(server.url, `/v1/records/${remote.id}`)).status).to.equal(404);
      const health = (await get(server.url, '/v1/sync/health')).json;
      expect(health.drift_alerts.map((a: any) => a.record_id)).to.include(remote.id);
      expect(health.conflicts_total).to.be.at.least(1);
    });
  });

  describe('sync pairs', () => {
    it('create warns on a loopback pair, shows state, pauses, resumes, kicks, deletes; the peer token is never echoed or recorded', async () => {
      const created = await postJson(server.url, '/v1/sync/pairs', { peer_did: instanceDid, peer_url: server.url, peer_token: 'secret-peer-token-123', mode: 'polling', poll_interval_ms: 50 });
      expect(created.status, created.text).to.equal(201);
      expect(created.json.warning).to.match(/own DID/);
      const id = created.json.pair_id;
      expect(created.text).to.not.include('secret-peer-token-123');
      expect((await get(server.url, `/v1/sync/pairs/${id}`)).json).to.include({ pair_id: id, peer_did: instanceDid });
      expect((await request(server.url, 'POST', `/v1/sync/pairs/${id}/pause`)).json.state).to.equal('paused');
      expect((await request(server.url, 'POST', `/v1/sync/pairs/${id}/resume`)).json.state).to.not.equal('paused');
      expect((await request(server.url, 'POST', `/v1/sync/pairs/${id}/kick`)).status).to.equal(200);
      expect((await get(server.url, `/v1/sync/pairs/${id}/stats`)).json).to.include({ object: 'sync_pair_stats', pair_id: id });
      expect((await get(server.url, '/v1/federation/sync/pairs')).json.data.map((p: any) => p.pair_id)).to.include(id);
      const lifecycle = await get(server.url, `/v1/threads/${TH_FEDERATION_PAIRS}/records?limit=100`);
      expect(lifecycle.text).to.include(id);
      expect(lifecycle.text).to.not.include('secret-peer-token-123');
      expect((await request(server.url, 'DELETE', `/v1/sync/pairs/${id}`)).status).to.equal(200);
      expectEnvelope(await get(server.url, `/v1/sync/pairs/${id}`), 404, 'PAIR_NOT_FOUND');
      expectEnvelope(await request(server.url, 'POST', '/v1/records', { json: { thread: TH_FEDERATION_PAIRS, actor: 'did:sync:user:x', act: 'LEARN', body: { kind: 'core.sync.pair.v1' }, clock: 0, data_type: 'SCALAR', parents: [] } }), 403, 'FORBIDDEN');
    });

    it('an expired peer manifest and a manifest whose DID is not the peer DID: the pair fails, counts it, stores nothing', async () => {
      const peerKey = InstanceKey.fromSeed(new Uint8Array(32).fill(3));
      const expired = signManifest(peerKey, buildFederationManifest({ did: peerKey.did, version: 'x', federationProtocolVersion: '0.13', baseUrl: null, kinds: [], namespaces: [] }), { now: Date.now() - 10 * 86_400_000, ttlMs: 86_400_000 });
      const fake: Server = createServer((req, res) => {
        res.writeHead(req.url === '/.well-known/service' ? 200 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(req.url === '/.well-known/service' ? { capabilities_manifest: {}, federation_manifest: expired } : { object: 'error', code: 'NOT_FOUND', message: 'no' }));
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
      const fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
      try {
        const stale = (await postJson(server.url, '/v1/sync/pairs', { peer_did: peerKey.did, peer_url: fakeUrl, peer_token: 'token-for-fake-peer', mode: 'polling' })).json;
        const mismatch = (await postJson(server.url, '/v1/sync/pairs', { peer_did: peerKey.did, peer_url: server.url, peer_token: 'token-for-real-peer', mode: 'polling' })).json;
        const errorOf = async (id: string) => {
          for (let i = 0; i < 100; i++) {
            const pair = (await get(server.url, `/v1/sync/pairs/${id}`)).json;
            if (pair.last_error) return pair.last_error.code;
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return null;
        };
        expect(await errorOf(stale.pair_id)).to.equal('MANIFEST_EXPIRED');
        expect(await errorOf(mismatch.pair_id)).to.equal('MANIFEST_DID_MISMATCH');
        const stats = (await get(server.url, `/v1/sync/pairs/${stale.pair_id}/stats`)).json;
        expect(stats.counters.rejected_by_reason.manifest_expired).to.be.at.least(1);
        expect(stats.counters.pulled).to.equal(0);
        const health = (await get(server.url, '/v1/sync/health')).json;
        expect(health.rejected_by_reason.manifest_did_mismatch).to.be.at.least(1);
        for (const id of [stale.pair_id, mismatch.pair_id]) await request(server.url, 'DELETE', `/v1/sync/pairs/${id}`);
      } finally {
        await new Promise((resolve) => fake.close(resolve));
      }
    });
  });
});

describe('federation with auth required', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  before(async () => {
    server = await startServer({ auth: { required: true }, federation: {} });
    admin = await bootstrapAdmin(server.url);
  });
  after(async () => server.stop());

  it("a peer's bearer limited to one namespace sees only that namespace in the feed", async () => {
    const writer = await createAccount(server.url, admin, 'writer', ['records:write', 'records:read'], ['did:sync:user:*']);
    // A thread holds records of one namespace: one thread each.
    const threads = new Map(['acme', 'globex', 'acme/eu'].map((namespace) => [namespace, newThread(`tenancy ${namespace}`)]));
    await declareNamespaces(server.url, bearer(admin), admin.did, ['acme', 'acme/eu', 'globex']);
    for (const [clock, namespace] of ['acme', 'globex', 'acme/eu', 'globex'].entries()) {
      const answer = await request(server.url, 'POST', '/v1/records', { headers: { ...bearer(writer), 'x-service-actor': 'did:sync:user:w' }, json: recordInput({ thread: threads.get(namespace)!, actor: 'did:sync:user:w', clock, body: { namespace } }) });
      expect(answer.status, answer.text).to.equal(201);
    }
    const peer = await createAccount(server.url, admin, 'peer', ['federation:sync', 'namespace:acme:read']);
    const ours = (entries: any[]) => entries.filter((e: any) => [...threads.values()].includes(e.record.thread)).map((e: any) => e.record.body.namespace);
    const { entries } = await drain(server.url, `&target_namespace=acme`, bearer(peer));
    // globex is outside the bearer's grain; acme/eu is visible but crossing into acme needs consent.
    expect(ours(entries)).to.deep.equal(['acme']);
    const eu = await drain(server.url, `&target_namespace=acme/eu`, bearer(peer));
    expect(ours(eu.entries)).to.deep.equal(['acme/eu']);
    const noSubscribe = await get(server.url, '/v1/sync/changes?feed=continuous', bearer(peer));
    expectEnvelope(noSubscribe, 403, 'SCOPE_FORBIDDEN');
  });

  it('consent records need federation:manage; consent and pair threads are hidden from readers without it', async () => {
    const writer = await createAccount(server.url, admin, 'consent-writer', ['records:write', 'records:read'], ['did:sync:user:*']);
    expectEnvelope(await grant(server.url, { ...bearer(writer), 'x-service-actor': 'did:sync:user:operator' }, { source_namespace: 'acme', target_namespace: 'beta' }, 0), 403, 'SCOPE_FORBIDDEN');
    expect((await grant(server.url, bearer(admin), { source_namespace: 'acme', target_namespace: 'beta' }, 0)).status).to.equal(201);
    const hidden = await get(server.url, `/v1/threads/${TH_CONSENT}/records`, bearer(writer));
    expect(hidden.json.data ?? []).to.deep.equal([]);
  });
});
