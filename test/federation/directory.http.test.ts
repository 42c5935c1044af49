/**
 * The did:sync directory over loopback HTTP: off by default (every route 404
 * DIRECTORY_DISABLED, capability false), turned on by the directory_enabled
 * configuration record, then genesis, update, revoke, the DID document's
 * exact bytes, the operations export, handles, and refusals that write
 * nothing.
 */
import { expect } from 'chai';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import { canonicalJson } from '../../core/records/canonical-json.js';
import { DIRECTORY_THREAD } from '../../plugins/federation/directory/index.js';
import { operationHash } from '../../plugins/federation/directory/directory-operation.js';
import { newOperationKey, revokeOp, syncOp } from '../../plugins/federation/directory/operation-signer.js';
import { verifyOperations } from '../../plugins/federation/directory/verify-operations.js';
import { expectEnvelope as envelope, get, postJson, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

/** The standard envelope; directory refusals may name the field at fault (`field`). */
function expectEnvelope(answer: HttpAnswer, status: number, code: string): void {
  envelope(answer, status, code, '', answer.json && 'field' in answer.json ? { field: answer.json.field } : {});
}

async function setDirectory(url: string, enabled: boolean, clock: number): Promise<void> {
  const answer = await postJson(url, '/v1/records', { thread: TH_ENGINE_CONFIG, actor: 'did:sync:user:operator', act: 'LEARN', body: { topic: 'directory_enabled', enabled }, clock, data_type: 'SCALAR', parents: [] });
  expect(answer.status, answer.text).to.equal(201);
}

async function capability(url: string): Promise<boolean | undefined> {
  return (await get(url, '/.well-known/service')).json.capabilities_manifest.capabilities['federation.directory'];
}

describe('the did:sync directory over HTTP', function () {
  this.timeout(60_000);
  let server: StartedServer;
  const watermark = () => server.loom.engine.store.watermark();

  before(async () => {
    server = await startServer({ federation: {} });
  });
  after(async () => server?.stop());

  const key = newOperationKey();
  const next = newOperationKey();
  const signing = newOperationKey();
  const genesis = syncOp(key, { rotation_keys: [key.did], verification_methods: { signing: signing.did }, services: { loom: { type: 'LoomInstance', endpoint: 'https://alice.example/loom' } }, handle: 'alice.example' }, null);
  let suffix = '';

  it('is off by default: every route answers 404 DIRECTORY_DISABLED and the capability is false', async () => {
    expect(await capability(server.url)).to.equal(false);
    const h = 'a'.repeat(52);
    const before = await watermark();
    expectEnvelope(await postJson(server.url, '/directory/genesis', genesis), 404, 'DIRECTORY_DISABLED');
    expectEnvelope(await postJson(server.url, `/directory/update/${h}`, genesis), 404, 'DIRECTORY_DISABLED');
    expectEnvelope(await postJson(server.url, `/directory/revoke/${h}`, revokeOp(key, 'a'.repeat(64))), 404, 'DIRECTORY_DISABLED');
    expectEnvelope(await get(server.url, `/directory/${h}/did.json`), 404, 'DIRECTORY_DISABLED');
    expectEnvelope(await get(server.url, `/directory/${h}/operations`), 404, 'DIRECTORY_DISABLED');
    expectEnvelope(await get(server.url, '/directory/handle/alice.example'), 404, 'DIRECTORY_DISABLED');
    expect(await watermark()).to.equal(before);
  });

  it('directory_enabled turns it on, hot, and the capability follows', async () => {
    await setDirectory(server.url, true, 0);
    expect(await capability(server.url)).to.equal(true);
  });

  it('genesis: 201 with the identifier derived from the operation; did.json is its canonical rendering', async () => {
    const created = await postJson(server.url, '/directory/genesis', genesis);
    expect(created.status, created.text).to.equal(201);
    expect(created.json).to.include({ object: 'directory_receipt', hash: operationHash(genesis), state: 'active', handle: 'alice.example' });
    const did: string = created.json.did;
    expect(did).to.match(/^did:sync:[a-z2-7]{52}$/);
    suffix = did.slice('did:sync:'.length);
    const doc = await get(server.url, `/directory/${suffix}/did.json`);
    expect(doc.status).to.equal(200);
    expect(doc.text).to.equal(canonicalJson(doc.json));
    expect(doc.json).to.deep.include({ id: did, alsoKnownAs: ['sync://alice.example'] });
    expect(doc.json.verificationMethod[0]).to.deep.equal({ id: `${did}#signing`, type: 'Multikey', controller: did, publicKeyMultibase: signing.did.slice(8) });
    expect(doc.json.service[0]).to.deep.equal({ id: `${did}#loom`, type: 'LoomInstance', serviceEndpoint: 'https://alice.example/loom' });
    expect((await get(server.url, '/directory/handle/alice.example')).json).to.deep.equal({ object: 'directory_handle', handle: 'alice.example', did, hash: suffix });
  });

  it('refusals are typed and write nothing: replayed genesis, taken handle, wrong route, forged record', async () => {
    const before = await watermark();
    expectEnvelope(await postJson(server.url, '/directory/genesis', genesis), 409, 'DIRECTORY_DID_EXISTS');
    expectEnvelope(await postJson(server.url, '/directory/genesis', syncOp(next, { rotation_keys: [next.did], handle: 'alice.example' }, null)), 409, 'DIRECTORY_HANDLE_TAKEN');
    expectEnvelope(await postJson(server.url, '/directory/genesis', { ...genesis, extra: true }), 422, 'DIRECTORY_OPERATION_INVALID');
    expectEnvelope(await postJson(server.url, `/directory/update/${suffix}`, revokeOp(key, operationHash(genesis))), 422, 'DIRECTORY_OPERATION_INVALID');
    expectEnvelope(await postJson(server.url, `/directory/update/${suffix}`, syncOp(next, { rotation_keys: [next.did] }, operationHash(genesis))), 422, 'DIRECTORY_SIGNATURE_INVALID');
    expectEnvelope(await postJson(server.url, `/directory/update/${'b'.repeat(52)}`, syncOp(key, { rotation_keys: [key.did] }, operationHash(genesis))), 404, 'DIRECTORY_DID_NOT_FOUND');
    expectEnvelope(await postJson(server.url, '/directory/genesis', 'not an object'), 422, 'DIRECTORY_OPERATION_INVALID');
    // Around the routes: the thread takes no record from POST /v1/records.
    const forged = await postJson(server.url, '/v1/records', { thread: DIRECTORY_THREAD, actor: 'did:sync:user:mallory', act: 'LEARN', body: { kind: 'directory.operation.v1', did: 'x', operation: {} }, clock: 0, data_type: 'SCALAR', parents: [] });
    expectEnvelope(forged, 403, 'FORBIDDEN');
    expect(await watermark()).to.equal(before);
  });

  it('update rotates the keys and changes the handle; the old head and the old key are refused after', async () => {
    const update = syncOp(key, { rotation_keys: [next.did], verification_methods: {}, services: {}, handle: 'alice2.example' }, operationHash(genesis));
    const answer = await postJson(server.url, `/directory/update/${suffix}`, update);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json).to.include({ hash: operationHash(update), handle: 'alice2.example' });
    expectEnvelope(await get(server.url, '/directory/handle/alice.example'), 404, 'DIRECTORY_HANDLE_NOT_FOUND');
    expectEnvelope(await postJson(server.url, `/directory/update/${suffix}`, syncOp(key, { rotation_keys: [key.did] }, operationHash(genesis))), 409, 'DIRECTORY_PREV_MISMATCH');
    expectEnvelope(await postJson(server.url, `/directory/update/${suffix}`, syncOp(key, { rotation_keys: [key.did] }, operationHash(update))), 422, 'DIRECTORY_SIGNATURE_INVALID');
    const ops = await get(server.url, `/directory/${suffix}/operations`);
    expect(ops.json.operations.map((entry: { hash: string }) => entry.hash)).to.deep.equal([operationHash(genesis), operationHash(update)]);
    const verified = verifyOperations(ops.json);
    expect(verified.ok).to.equal(true);
    expect(verified.document).to.equal((await get(server.url, `/directory/${suffix}/did.json`)).text);
  });

  it('revoke is terminal: 410 for the document and every later operation; the export still verifies', async () => {
    const ops = (await get(server.url, `/directory/${suffix}/operations`)).json.operations;
    const head = ops[ops.length - 1].hash;
    expectEnvelope(await postJson(server.url, `/directory/revoke/${suffix}`, syncOp(next, { rotation_keys: [next.did] }, head)), 422, 'DIRECTORY_OPERATION_INVALID');
    const revoked = await postJson(server.url, `/directory/revoke/${suffix}`, revokeOp(next, head));
    expect(revoked.status, revoked.text).to.equal(200);
    expect(revoked.json).to.include({ state: 'revoked', handle: null });
    const before = await watermark();
    expectEnvelope(await get(server.url, `/directory/${suffix}/did.json`), 410, 'DIRECTORY_REVOKED');
    expectEnvelope(await postJson(server.url, `/directory/update/${suffix}`, syncOp(next, { rotation_keys: [next.did] }, revoked.json.hash)), 410, 'DIRECTORY_REVOKED');
    expectEnvelope(await postJson(server.url, `/directory/revoke/${suffix}`, revokeOp(next, revoked.json.hash)), 410, 'DIRECTORY_REVOKED');
    expect(await watermark()).to.equal(before);
    const exported = (await get(server.url, `/directory/${suffix}/operations`)).json;
    expect(exported.state).to.equal('revoked');
    expect(verifyOperations(exported)).to.include({ ok: true, state: 'revoked', operations: 3 });
    expect((await get(server.url, '/health')).json.directory).to.include({ enabled: true, identities: 1, revoked: 1, skipped: 0 });
  });

  it('turning it off again answers DIRECTORY_DISABLED; the state stays for when it is back', async () => {
    await setDirectory(server.url, false, 1);
    expect(await capability(server.url)).to.equal(false);
    expectEnvelope(await get(server.url, `/directory/${suffix}/operations`), 404, 'DIRECTORY_DISABLED');
    await setDirectory(server.url, true, 2);
    expect((await get(server.url, `/directory/${suffix}/operations`)).status).to.equal(200);
  });
});
