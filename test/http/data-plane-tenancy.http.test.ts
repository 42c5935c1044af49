/**
 * Tenancy of the data plane with auth required: a credential of namespace
 * `acme` and one of `globex` each write in their own namespace (the default
 * namespace parameter resolves to the caller's only namespace grain), and
 * neither can see, read by hash, probe or write the other's files. An admin
 * sees both; a read-only credential cannot open uploads.
 */
import { expect } from 'chai';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { completeWrite, expectRefusal, initWrite, readBlob, sha256, testBytes, uploadFile } from '../helpers/data-plane.js';
import { get, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

const CHUNK = 64 * 1024;
const q = encodeURIComponent;

describe('data plane tenancy: namespace grains (auth required)', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let url: string;
  let admin: Credential;
  let acme: Credential;
  let globex: Credential;
  let acmeReader: Credential;
  const acmeContent = testBytes(2 * CHUNK + 99, 1);
  const globexContent = testBytes(CHUNK + 7, 2);
  const acmeHash = sha256(acmeContent);
  const globexHash = sha256(globexContent);

  const as = (who: Credential) => bearer(who);
  const post = (who: Credential, path: string, json: Record<string, unknown>): Promise<HttpAnswer> => request(url, 'POST', path, { json, headers: as(who) });
  const paths = (answer: HttpAnswer): string[] => answer.json.entries.map((e: any) => e.path);

  before(async () => {
    server = await startServer({ auth: { required: true }, data: { chunkSizeBytes: CHUNK } });
    url = server.url;
    admin = await bootstrapAdmin(url);
    // What `loom namespace create <id>` writes: records in a namespace need it declared.
    let clock = 0;
    for (const namespace of ['acme', 'globex']) {
      const declared = await post(admin, '/v1/records', { thread: 'th_namespace_registry', actor: admin.did, act: 'LEARN', body: { namespace_id: namespace, state: 'active' }, clock: clock++, data_type: 'SCALAR' });
      expect(declared.status, declared.text).to.equal(201);
    }
    acme = await createAccount(url, admin, 'acme writer', ['namespace:acme:read', 'namespace:acme:write']);
    globex = await createAccount(url, admin, 'globex writer', ['namespace:globex:read', 'namespace:globex:write']);
    acmeReader = await createAccount(url, admin, 'acme reader', ['namespace:acme:read']);
    await uploadFile(url, '/plans/roadmap.bin', acmeContent, { chunkSize: CHUNK, headers: as(acme), init: { provenance: { goal_summary: 'acme roadmap' } } });
    await uploadFile(url, '/secret/formula.bin', globexContent, { chunkSize: CHUNK, headers: as(globex), init: { provenance: { goal_summary: 'globex formula' } } });
  });
  after(async () => server?.stop());

  it('each writes in its own namespace, resolved from its only namespace grain', async () => {
    for (const [who, namespace, path, hash] of [
      [acme, 'acme', '/plans/roadmap.bin', acmeHash],
      [globex, 'globex', '/secret/formula.bin', globexHash],
    ] as const) {
      const stat = await get(url, `/v1/data/stat?path=${q(path)}`, as(who));
      expect(stat.status, stat.text).to.equal(200);
      expect(stat.json).to.include({ namespace, path, content_hash: hash });
      expect(stat.json.provenance.actor).to.equal(who.did);
      const root = await get(url, '/v1/data/list', as(who));
      expect(root.json.namespace).to.equal(namespace);
      expect(paths(root)).to.deep.equal([path.slice(0, path.lastIndexOf('/'))]);
      expect((await readBlob(url, `/v1/blobs/${hash}`, as(who))).status).to.equal(200);
      const usage = await get(url, '/v1/data/usage', as(who));
      expect(usage.json).to.include({ namespace, files: 1 });
    }
    // Naming one's own namespace explicitly is the same.
    expect((await get(url, `/v1/data/stat?namespace=acme&path=${q('/plans/roadmap.bin')}`, as(acme))).status).to.equal(200);
  });

  it("neither lists, stats, searches or reads the other's files", async () => {
    for (const [who, other, path] of [
      [acme, 'globex', '/secret/formula.bin'],
      [globex, 'acme', '/plans/roadmap.bin'],
    ] as const) {
      // Through its own namespace (the path is simply not there) and naming the other namespace.
      expectRefusal(await get(url, `/v1/data/stat?path=${q(path)}`, as(who)), 404, 'PATH_NOT_FOUND');
      expectRefusal(await get(url, `/v1/data/stat?namespace=${other}&path=${q(path)}`, as(who)), 404, 'PATH_NOT_FOUND');
      expectRefusal(await get(url, `/v1/data/node?namespace=${other}&path=${q(path)}`, as(who)), 404, 'PATH_NOT_FOUND');
      const dir = path.slice(0, path.lastIndexOf('/'));
      expectRefusal(await get(url, `/v1/data/list?namespace=${other}&path=${q(dir)}`, as(who)), 404, 'PATH_NOT_FOUND');
      const root = await get(url, `/v1/data/list?namespace=${other}`, as(who));
      expect(root.status, root.text).to.equal(200);
      expect(root.json.entries).to.deep.equal([]);
      expect((await get(url, `/v1/data/materials?namespace=${other}`, as(who))).json.data).to.deep.equal([]);
      expect((await get(url, `/v1/data/provenance?namespace=${other}`, as(who))).json.data).to.deep.equal([]);
      // Usage includes open uploads and the quota, which no view of the tree hides: refused outright.
      expectRefusal(await get(url, `/v1/data/usage?namespace=${other}`, as(who)), 403, 'SCOPE_FORBIDDEN');
      expectRefusal(await post(who, '/v1/data/read-url', { path, namespace: other }), 404, 'PATH_NOT_FOUND');
    }
  });

  it("neither fetches the other's blob by hash, even knowing the hash", async () => {
    expectRefusal(await get(url, `/v1/blobs/${globexHash}`, as(acme)), 404, 'BLOB_NOT_FOUND');
    expectRefusal(await get(url, `/v1/blobs/${acmeHash}`, as(globex)), 404, 'BLOB_NOT_FOUND');
    expectRefusal(await get(url, `/v1/blobs/${globexHash}`, { ...as(acme), range: 'bytes=0-9' }), 404, 'BLOB_NOT_FOUND');
    // The same answer as a hash nobody holds.
    expectRefusal(await get(url, `/v1/blobs/${sha256(Buffer.from('nobody'))}`, as(acme)), 404, 'BLOB_NOT_FOUND');
  });

  it("neither writes into the other's namespace: 403 before anything is stored", async () => {
    expectRefusal(await post(acme, '/v1/data/mkdir', { path: '/intruder', namespace: 'globex' }), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await post(globex, '/v1/data/mkdir', { path: '/intruder', namespace: 'acme' }), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await post(acme, '/v1/data/rm', { path: '/secret/formula.bin', namespace: 'globex' }), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await post(acme, '/v1/data/mv', { from: '/secret/formula.bin', to: '/stolen.bin', namespace: 'globex' }), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await post(acme, '/v1/data/publish', { path: '/secret/formula.bin', namespace: 'globex' }), 403, 'SCOPE_FORBIDDEN');
    expect((await get(url, `/v1/data/stat?path=${q('/secret/formula.bin')}`, as(globex))).json).to.include({ content_hash: globexHash, pin_state: 'unpinned' });
    expectRefusal(await get(url, `/v1/data/stat?path=${q('/intruder')}`, as(globex)), 404, 'PATH_NOT_FOUND');
  });

  it("an upload into the other's namespace is refused at init, reserving none of its quota", async () => {
    expectRefusal(await initWrite(url, { path: '/intruder.bin', size_bytes: 10, namespace: 'globex' }, as(acme)), 403, 'SCOPE_FORBIDDEN');
    expect((await get(url, '/v1/data/usage', as(globex))).json.uploads).to.deep.equal({ open: 0, reserved_bytes: 0 });
  });

  it("the other's paths and hashes cannot be probed through refusals", async () => {
    // A create-only write over the other's file must not answer its current hash, nor tell it exists.
    const probes = [
      await initWrite(url, { path: '/secret/formula.bin', size_bytes: 1, namespace: 'globex', precondition: { expected_hash: null } }, as(acme)),
      await post(acme, '/v1/data/rm', { path: '/secret/formula.bin', namespace: 'globex' }),
    ];
    const absent = [
      await initWrite(url, { path: '/secret/absent.bin', size_bytes: 1, namespace: 'globex', precondition: { expected_hash: null } }, as(acme)),
      await post(acme, '/v1/data/rm', { path: '/secret/absent.bin', namespace: 'globex' }),
    ];
    for (const [i, answer] of probes.entries()) {
      expect(answer.text).to.not.contain(globexHash);
      expect([answer.status, answer.json.code], `probe ${i}: an existing path answers like an absent one`).to.deep.equal([absent[i]!.status, absent[i]!.json.code]);
    }
  });

  it('an admin sees both namespaces', async () => {
    for (const [namespace, path, hash, content] of [
      ['acme', '/plans/roadmap.bin', acmeHash, acmeContent],
      ['globex', '/secret/formula.bin', globexHash, globexContent],
    ] as const) {
      const stat = await get(url, `/v1/data/stat?namespace=${namespace}&path=${q(path)}`, as(admin));
      expect(stat.status, stat.text).to.equal(200);
      expect(stat.json).to.include({ namespace, content_hash: hash });
      const dir = path.slice(0, path.lastIndexOf('/'));
      expect(paths(await get(url, `/v1/data/list?namespace=${namespace}&path=${q(dir)}`, as(admin)))).to.deep.equal([path]);
      expect((await get(url, `/v1/data/provenance?namespace=${namespace}`, as(admin))).json.data.map((e: any) => e.path)).to.deep.equal([path]);
      const blob = await readBlob(url, `/v1/blobs/${hash}`, as(admin));
      expect(blob.status).to.equal(200);
      expect(blob.bytes.equals(content)).to.equal(true);
    }
    // Without a namespace grain the default is `default`, which holds neither.
    expect((await get(url, '/v1/data/list', as(admin))).json).to.include({ namespace: 'default' });
    expectRefusal(await get(url, `/v1/data/stat?path=${q('/plans/roadmap.bin')}`, as(admin)), 404, 'PATH_NOT_FOUND');
  });

  it('a read-only credential reads its namespace but cannot open uploads or change anything (403 SCOPE_FORBIDDEN)', async () => {
    expect((await get(url, `/v1/data/stat?path=${q('/plans/roadmap.bin')}`, as(acmeReader))).json).to.include({ namespace: 'acme', content_hash: acmeHash });
    expect((await readBlob(url, `/v1/blobs/${acmeHash}`, as(acmeReader))).bytes.equals(acmeContent)).to.equal(true);
    const link = await post(acmeReader, '/v1/data/read-url', { path: '/plans/roadmap.bin' });
    expect(link.status, link.text).to.equal(200);
    expect((await readBlob(url, link.json.blob_url)).bytes.equals(acmeContent)).to.equal(true);

    expectRefusal(await initWrite(url, { path: '/plans/new.bin', size_bytes: 10 }, as(acmeReader)), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await post(acmeReader, '/v1/data/mkdir', { path: '/plans/more' }), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await post(acmeReader, '/v1/data/rm', { path: '/plans/roadmap.bin' }), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await post(acmeReader, '/v1/data/publish', { path: '/plans/roadmap.bin' }), 403, 'SCOPE_FORBIDDEN');
    expectRefusal(await completeWrite(url, `up_${'0'.repeat(32)}`, as(acmeReader)), 403, 'SCOPE_FORBIDDEN');
    expect((await get(url, '/v1/data/usage', as(acme))).json.uploads.open).to.equal(0);
  });
});
