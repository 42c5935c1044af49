/**
 * Writes under grains, on every write surface: a credential holding a
 * thread grain or a namespace grain cannot land a record in a namespace it
 * does not hold, whichever door it uses. A thread belongs to the namespace
 * of its first record, so a thread grain holds that namespace and no other.
 * And the DUPLICATE_CLOCK conflict names the record holding the slot only to
 * a caller who may read it.
 */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, get, newThread, recordInput, request, startServer, type StartedServer } from '../helpers/http-server.js';

describe('auth: grains on every write surface, and the DUPLICATE_CLOCK oracle', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let url: string;
  let admin: Credential;
  let threadWriter: Credential;
  let namespaceWriter: Credential;
  let acmeReader: Credential;
  let betaReader: Credential;
  const BETA = newThread('grain-writes-beta');
  const ACME = newThread('grain-writes-acme');
  let adminClock = 0;

  const post = (who: Credential, path: string, json: unknown, headers: Record<string, string> = {}) => request(url, 'POST', path, { json, headers: { ...bearer(who), ...headers } });
  /** Every record acme's reader can see: what a refused write must not add to. */
  const acmeRecords = async () => (await request(url, 'POST', '/v1/records/query', { json: { filter: {} , limit: 1000 }, headers: bearer(acmeReader) })).json.data.map((r: any) => r.id) as string[];

  before(async () => {
    server = await startServer({ auth: { required: true }, federation: {} });
    url = server.url;
    admin = await bootstrapAdmin(url);
    for (const ns of ['acme', 'beta']) {
      const declared = await post(admin, '/v1/records', { thread: 'th_namespace_registry', actor: admin.did, act: 'LEARN', body: { namespace_id: ns }, clock: adminClock++, data_type: 'SCALAR' });
      expect(declared.status, declared.text).to.equal(201);
    }
    for (const [thread, namespace] of [
      [BETA, 'beta'],
      [ACME, 'acme'],
    ] as const) {
      const opened = await post(admin, '/v1/records', recordInput({ thread, actor: 'did:sync:user:owner', clock: 0, body: { namespace, goal: 'open' } }));
      expect(opened.status, opened.text).to.equal(201);
    }
    threadWriter = await createAccount(url, admin, 'beta thread writer', [`thread:${BETA}:write`, `thread:${BETA}:read`]);
    namespaceWriter = await createAccount(url, admin, 'beta writer', ['namespace:beta:write', 'namespace:beta:read', 'threads:write', 'federation:sync']);
    acmeReader = await createAccount(url, admin, 'acme reader', ['namespace:acme:read']);
    betaReader = await createAccount(url, admin, 'beta reader', ['namespace:beta:read']);
  });
  after(async () => server?.stop());

  it('a thread grain writes in its thread namespace only: another namespace on that thread is refused and stays invisible', async () => {
    const before = await acmeRecords();
    const intruder = await post(threadWriter, '/v1/records', recordInput({ thread: BETA, actor: threadWriter.did, clock: 1, body: { namespace: 'acme', summary: 'smuggled' } }));
    expectEnvelope(intruder, 403, 'NAMESPACE_REJECTED');
    expect(intruder.json.message).to.contain('holds records of another namespace');
    // The same write in the thread's own namespace is the grain's business.
    expect((await post(threadWriter, '/v1/records', recordInput({ thread: BETA, actor: threadWriter.did, clock: 1, body: { namespace: 'beta', summary: 'fine' } }))).status).to.equal(201);
    expect(await acmeRecords()).to.deep.equal(before);
  });

  it('POST /v1/records and /v1/records/batch: neither grain lands a record in acme, on any thread', async () => {
    const before = await acmeRecords();
    for (const who of [threadWriter, namespaceWriter]) {
      for (const thread of [BETA, ACME, newThread()]) {
        const one = await post(who, '/v1/records', recordInput({ thread, actor: who.did, clock: 7, body: { namespace: 'acme' } }));
        expect(one.status, `${who.serviceAccountId} on ${thread}: ${one.text}`).to.be.oneOf([403]);
        expect(one.json.code).to.be.oneOf(['NAMESPACE_REJECTED', 'SCOPE_FORBIDDEN']);
        const batch = await post(who, '/v1/records/batch', [recordInput({ thread, actor: who.did, clock: 8, body: { namespace: 'acme' } })]);
        expect(batch.status, batch.text).to.equal(200);
        expect(batch.json.results[0].status, JSON.stringify(batch.json.results[0])).to.equal(403);
      }
    }
    // Two records of one batch cannot give one new thread two namespaces.
    const fresh = newThread();
    const split = await post(admin, '/v1/records/batch', [
      recordInput({ thread: fresh, actor: 'did:sync:user:owner', clock: 0, body: { namespace: 'beta' } }),
      recordInput({ thread: fresh, actor: 'did:sync:user:owner', clock: 1, body: { namespace: 'acme' } }),
    ]);
    expect(split.json.results.map((r: any) => r.status)).to.deep.equal([201, 403]);
    expect(split.json.results[1].code).to.equal('NAMESPACE_REJECTED');
    expect(await acmeRecords()).to.deep.equal(before);
  });

  it('POST /v1/threads, DELETE /v1/threads/{id}, the data plane, config and federation receive: nothing lands in acme', async () => {
    const before = await acmeRecords();
    expect((await post(namespaceWriter, '/v1/threads', { goal: 'in acme', namespace: 'acme' })).status).to.equal(403);
    expect((await post(namespaceWriter, '/v1/threads', { goal: 'in beta', namespace: 'beta' })).status).to.equal(201);
    // Archiving writes into the thread's own namespace: the beta writer may archive a beta thread, never an acme one.
    expect((await request(url, 'DELETE', `/v1/threads/${ACME}`, { headers: bearer(namespaceWriter) })).status).to.equal(403);
    expect((await request(url, 'DELETE', `/v1/threads/${ACME}`, { headers: bearer(threadWriter) })).status).to.equal(403);
    const archived = await request(url, 'DELETE', `/v1/threads/${BETA}`, { headers: bearer(namespaceWriter) });
    expect(archived.status, archived.text).to.be.oneOf([200, 201]);
    expect((await get(url, `/v1/threads/${BETA}/state`, bearer(betaReader))).json.value.archived).to.equal(true);
    expect((await post(namespaceWriter, '/v1/data/mkdir', { path: '/intruder', namespace: 'acme' })).status).to.equal(403);
    expect((await post(threadWriter, '/v1/data/mkdir', { path: '/intruder', namespace: 'acme' })).status).to.equal(403);
    expect((await post(namespaceWriter, '/v1/config/grant_lifetime', { default_seconds: 3600 })).status).to.equal(403);
    const pushed = await post(namespaceWriter, '/v1/sync/records', { records: [recordInput({ thread: BETA, actor: namespaceWriter.did, clock: 9, body: { namespace: 'acme' } })] });
    expect(pushed.status, pushed.text).to.equal(201);
    expect(pushed.json.accepted).to.deep.equal([]);
    expect(pushed.json.refused).to.have.length(1);
    expect(pushed.json.refused[0].code).to.be.oneOf(['SCOPE_FORBIDDEN', 'NAMESPACE_REJECTED']);
    expect(await acmeRecords()).to.deep.equal(before);
  });

  it('DUPLICATE_CLOCK names the holder only to a caller who may read it', async () => {
    const thread = newThread('oracle');
    const held = await post(admin, '/v1/records', recordInput({ thread, actor: 'did:sync:user:shared', clock: 3, body: { namespace: 'beta', summary: 'secret' } }));
    expect(held.status, held.text).to.equal(201);
    const holder = held.json.id as string;
    const clash = recordInput({ thread, actor: 'did:sync:user:shared', clock: 3, body: { namespace: 'beta', summary: 'other' } });
    // Writers who may read beta see the id; the batch door says the same.
    const seen = await post(admin, '/v1/records', clash);
    expectEnvelope(seen, 409, 'DUPLICATE_CLOCK');
    expect(seen.json.message).to.contain(holder);
    const readerWriter = await createAccount(url, admin, 'beta reader-writer', ['namespace:beta:read', 'namespace:beta:write'], ['did:sync:user:*']);
    const seenToo = await post(readerWriter, '/v1/records', clash);
    expectEnvelope(seenToo, 409, 'DUPLICATE_CLOCK');
    expect(seenToo.json.message).to.contain(holder);
    // A writer who may write beta but not read it gets the same conflict and no id.
    const blindWriter = await createAccount(url, admin, 'beta blind writer', ['namespace:beta:write'], ['did:sync:user:*']);
    const blind = await post(blindWriter, '/v1/records', clash);
    expectEnvelope(blind, 409, 'DUPLICATE_CLOCK');
    expect(blind.text).not.to.contain(holder);
    const blindBatch = await post(blindWriter, '/v1/records/batch', [clash]);
    expect(blindBatch.json.results[0]).to.include({ status: 409, code: 'DUPLICATE_CLOCK' });
    expect(blindBatch.text).not.to.contain(holder);
    expect((await get(url, `/v1/records/${holder}`, bearer(betaReader))).status).to.equal(200);
  });
});
