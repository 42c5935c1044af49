/**
 * Wire grains (spec §5.3) on every read surface and on writes, on both
 * drivers: a `thread:<a>:read` credential is served thread a and sees thread
 * b exactly as a missing one (404 by id, empty pages, zero totals, no feed
 * events); `namespace:<ns>:read` likewise for a namespace and its children.
 * Query totals count only what the credential may page through.
 */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, recordInput, request, SseReader, startServer, type StartedServer } from '../helpers/http-server.js';

for (const storage of ['sqlite', 'level'] as const) {
  describe(`auth: wire grains on every surface (${storage})`, function () {
    this.timeout(60_000);
    let server: StartedServer;
    let url: string;
    let admin: Credential;
    let threadReader: Credential;
    let namespaceReader: Credential;
    let threadWriter: Credential;
    let namespaceWriter: Credential;
    const A = newThread('grain-a');
    const B = newThread('grain-b');
    // A thread holds records of one namespace (its first record's), so each namespace has its own threads.
    const ACME = newThread('grain-acme');
    const WEB = newThread('grain-acme-web');
    const OTHER = newThread('grain-other');
    const DEFAULT = newThread('grain-default');
    const ids: Record<string, string[]> = { a: [], b: [], acme: [], other: [] };
    let adminClock = 0;

    const write = async (thread: string, clock: number, body: Record<string, unknown> = {}, actor = 'did:sync:user:alice') => {
      const answer = await request(url, 'POST', '/v1/records', { json: recordInput({ thread, actor, clock, body }), headers: bearer(admin) });
      expect(answer.status, answer.text).to.equal(201);
      return answer.json.id as string;
    };
    const as = (credential: Credential) => bearer(credential);

    before(async () => {
      server = await startServer({ storage, auth: { required: true } });
      url = server.url;
      admin = await bootstrapAdmin(url);
      for (const ns of ['acme', 'acme/web', 'other']) {
        const declared = await request(url, 'POST', '/v1/records', {
          json: { thread: 'th_namespace_registry', actor: admin.did, act: 'LEARN', body: { namespace_id: ns }, clock: adminClock++, data_type: 'SCALAR' },
          headers: bearer(admin),
        });
        expect(declared.status, declared.text).to.equal(201);
      }
      ids['a']!.push(await write(A, 0), await write(A, 1));
      ids['b']!.push(await write(B, 2), await write(B, 3), await write(B, 4));
      ids['acme']!.push(await write(ACME, 5, { namespace: 'acme' }), await write(WEB, 6, { namespace: 'acme/web' }));
      ids['other']!.push(await write(OTHER, 7, { namespace: 'other' }), await write(DEFAULT, 8));
      threadReader = await createAccount(url, admin, 'thread reader', [`thread:${A}:read`]);
      namespaceReader = await createAccount(url, admin, 'namespace reader', ['namespace:acme:read']);
      threadWriter = await createAccount(url, admin, 'thread writer', [`thread:${A}:write`, `thread:${A}:read`]);
      namespaceWriter = await createAccount(url, admin, 'namespace writer', ['namespace:acme:write']);
    });
    after(async () => server.stop());

    it('GET /v1/records/{id}: served inside the grain, 404 outside, like a missing record', async () => {
      for (const id of ids['a']!) expect((await get(url, `/v1/records/${id}`, as(threadReader))).status).to.equal(200);
      for (const id of ids['b']!) expectEnvelope(await get(url, `/v1/records/${id}`, as(threadReader)), 404, 'NOT_FOUND');
      for (const id of ids['acme']!) expect((await get(url, `/v1/records/${id}`, as(namespaceReader))).status).to.equal(200);
      for (const id of [...ids['other']!, ...ids['a']!]) expectEnvelope(await get(url, `/v1/records/${id}`, as(namespaceReader)), 404, 'NOT_FOUND');
    });

    it('thread and actor pages hold only visible records', async () => {
      const page = async (path: string, who: Credential) => (await get(url, path, as(who))).json;
      expect((await page(`/v1/records?thread=${A}`, threadReader)).data.map((r: any) => r.id)).to.deep.equal(ids['a']);
      expect(await page(`/v1/records?thread=${B}`, threadReader)).to.deep.include({ data: [], has_more: false, next_cursor: null });
      expect((await page(`/v1/threads/${A}/records`, threadReader)).data).to.have.length(2);
      expect((await page(`/v1/threads/${B}/records`, threadReader)).data).to.have.length(0);
      expect((await page('/v1/records?actor=did:sync:user:alice', threadReader)).data.map((r: any) => r.id)).to.deep.equal(ids['a']);
      expect((await page('/v1/records?actor=did:sync:user:alice', namespaceReader)).data.map((r: any) => r.id)).to.deep.equal(ids['acme']);
      expect((await page(`/v1/threads/${ACME}/records`, namespaceReader)).data.map((r: any) => r.id)).to.deep.equal([ids['acme']![0]]);
      expect((await page(`/v1/threads/${WEB}/records`, namespaceReader)).data.map((r: any) => r.id)).to.deep.equal([ids['acme']![1]]);
      expect((await page(`/v1/threads/${OTHER}/records`, namespaceReader)).data).to.deep.equal([]);
      // Paging one at a time still ends and never shows another thread's record.
      let after: string | null = null;
      const seen: string[] = [];
      do {
        const next: any = await page(`/v1/records?actor=did:sync:user:alice&limit=1${after ? `&after=${after}` : ''}`, namespaceReader);
        seen.push(...next.data.map((r: any) => r.id));
        after = next.next_cursor;
      } while (after);
      expect(seen).to.deep.equal(ids['acme']);
    });

    it('thread lists, state, participants, projections and thread folds see only their part', async () => {
      const threads = (await get(url, '/v1/threads?limit=1000', as(threadReader))).json.data;
      expect(threads.map((t: any) => t.thread)).to.deep.equal([A]);
      const nsThreads = (await get(url, '/v1/threads?limit=1000', as(namespaceReader))).json.data;
      expect(nsThreads.map((t: any) => [t.thread, t.record_count])).to.have.deep.members([
        [ACME, 1],
        [WEB, 1],
      ]);
      expect((await get(url, `/v1/threads/${A}/state`, as(threadReader))).json.value.record_count).to.equal(2);
      expect((await get(url, `/v1/threads/${B}/state`, as(threadReader))).json.value).to.include({ record_count: 0, status: 'none' });
      expect((await get(url, `/v1/threads/${ACME}/state`, as(namespaceReader))).json.value.record_count).to.equal(1);
      expect((await get(url, `/v1/threads/${OTHER}/state`, as(namespaceReader))).json.value).to.include({ record_count: 0, status: 'none' });
      expect((await get(url, `/v1/folds/thread_state/${B}`, as(threadReader))).json.value.record_count).to.equal(0);
      expect((await get(url, `/v1/threads/${B}/participants`, as(threadReader))).json.data).to.deep.equal([]);
      expect((await get(url, `/v1/threads/${A}/participants`, as(threadReader))).json.data.map((p: any) => p.actor)).to.deep.equal(['did:sync:user:alice']);
      expect((await get(url, `/v1/threads/${B}/project?format=messages`, as(threadReader))).json.messages).to.deep.equal([]);
      expect((await get(url, `/v1/threads/${A}/project?format=messages`, as(threadReader))).json.messages).to.have.length(2);
      // A global fold reading records beyond the grain is folded over the caller's records only, never served whole.
      const config = (await get(url, '/v1/folds/engine_config', as(threadReader))).json;
      expect(config.cache_key).to.match(/~[0-9a-f]{12}$/);
      expect(config.value).to.include({ version: 0 });
      expect(config.value.changed_at).to.deep.equal({});
      expect((await get(url, '/v1/folds/credentials', as(threadReader))).json.value).to.deep.equal({ service_accounts: [], tokens: [], grants: 0, invites: 0, bindings: 0 });
    });

    it('query: results and matched_total count only what the caller can page through', async () => {
      const query = async (who: Credential, body: Record<string, unknown>) => (await request(url, 'POST', '/v1/records/query', { json: body, headers: as(who) })).json;
      const all = await query(threadReader, { filter: {} });
      expect(all.data.map((r: any) => r.id)).to.deep.equal(ids['a']);
      expect(all).to.include({ matched_total: 2, capped: false });
      expect(await query(threadReader, { thread: B })).to.include({ matched_total: 0 });
      const ns = await query(namespaceReader, { filter: { actor: 'did:sync:user:alice' }, limit: 1 });
      expect(ns).to.include({ matched_total: 2, capped: true });
      const second = await query(namespaceReader, { filter: { actor: 'did:sync:user:alice' }, limit: 1, offset: 1 });
      expect(second).to.include({ matched_total: 2, capped: false });
      expect([...ns.data, ...second.data].map((r: any) => r.id)).to.deep.equal(ids['acme']);
      // The admin sees every record of alice.
      expect((await query(admin, { filter: { actor: 'did:sync:user:alice' } })).matched_total).to.equal(9);
    });

    it('the SSE watch delivers only visible records', async () => {
      const watchA = await SseReader.open(`${url}/v1/threads/${A}/watch`, as(threadReader));
      const watchB = await SseReader.open(`${url}/v1/threads/${B}/watch`, as(threadReader));
      try {
        expect(watchA.response.status).to.equal(200);
        expect(watchB.response.status).to.equal(200);
        await watchA.untilEvents(2);
        await write(B, 9);
        const latest = await write(A, 10);
        await watchA.until((r) => r.events.some((e) => JSON.parse(e.data).id === latest), 5000, 'the new record of A');
        expect(watchB.events).to.deep.equal([]);
      } finally {
        watchA.close();
        watchB.close();
      }
    });

    it('writes: inside the write grain only', async () => {
      const post = (who: Credential, thread: string, body: Record<string, unknown> = {}) =>
        request(url, 'POST', '/v1/records', { json: recordInput({ thread, actor: who.did, body }), headers: as(who) });
      expect((await post(threadWriter, A)).status).to.equal(201);
      expectEnvelope(await post(threadWriter, B), 403, 'SCOPE_FORBIDDEN');
      expect((await post(namespaceWriter, newThread(), { namespace: 'acme/web' })).status).to.equal(201);
      expectEnvelope(await post(namespaceWriter, newThread(), { namespace: 'other' }), 403, 'SCOPE_FORBIDDEN');
      expectEnvelope(await post(namespaceWriter, newThread()), 403, 'SCOPE_FORBIDDEN');
      // A read grain is no write grant, and a write grain no read grant.
      expectEnvelope(await post(threadReader, A), 403, 'SCOPE_FORBIDDEN');
      expectEnvelope(await get(url, `/v1/records?thread=${A}`, as(namespaceWriter)), 403, 'SCOPE_FORBIDDEN');
    });
  });
}
