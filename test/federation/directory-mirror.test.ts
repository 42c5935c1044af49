/**
 * The directory mirror test (issue 35 goal 4): 1,000 identities are created
 * on one instance (some updated with a key rotation and a new handle, some
 * revoked), its log is exported and imported into a second instance, which
 * re-checks every operation through its own gate and fold as it ingests it.
 * The mirror then serves the same bytes for every identity's did.json (or
 * the same 410 for a revoked one) and operations, and the offline verifier
 * reproduces each did.json byte for byte from the operations alone: no
 * directory has to be trusted.
 */
import { expect } from 'chai';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import { operationHash } from '../../plugins/federation/directory/directory-operation.js';
import { newOperationKey, revokeOp, syncOp, type OperationKey } from '../../plugins/federation/directory/operation-signer.js';
import { verifyOperations } from '../../plugins/federation/directory/verify-operations.js';
import { get, mapLimit, postJson, request, startServer, type StartedServer } from '../helpers/http-server.js';

const IDENTITIES = 1000;

interface Made {
  readonly suffix: string;
  readonly key: OperationKey;
  head: string;
}

describe('the directory mirror: export, import, identical documents', function () {
  this.timeout(120_000);
  let origin: StartedServer;
  let mirror: StartedServer;
  const made: Made[] = [];
  const figures: Record<string, number> = {};

  before(async () => {
    [origin, mirror] = await Promise.all([startServer({ federation: {} }), startServer({ federation: {} })]);
    const on = await postJson(origin.url, '/v1/records', { thread: TH_ENGINE_CONFIG, actor: 'did:sync:user:operator', act: 'LEARN', body: { topic: 'directory_enabled', enabled: true }, clock: 0, data_type: 'SCALAR', parents: [] });
    expect(on.status, on.text).to.equal(201);
  });
  after(async () => {
    if (process.env['LOOM_TEST_FIGURES'] === '1') console.log(`      figures: ${JSON.stringify(figures)}`);
    await origin?.stop();
    await mirror?.stop();
  });

  it(`creates ${IDENTITIES} identities, updates every tenth, revokes every twentieth`, async () => {
    const started = Date.now();
    const signing = newOperationKey();
    // Keys cost more to make than to use: 50 of them sign the 1,000 distinct geneses (each names its own endpoint).
    const pool = Array.from({ length: 50 }, () => newOperationKey());
    const results = await mapLimit(Array.from({ length: IDENTITIES }, (_, i) => i), 8, async (i) => {
      const key = pool[i % pool.length]!;
      const genesis = syncOp(key, { rotation_keys: [key.did], verification_methods: { signing: signing.did }, services: { loom: { type: 'LoomInstance', endpoint: `https://n${i}.example/loom` } }, handle: i % 3 === 0 ? null : `user${i}.example` }, null);
      const answer = await postJson(origin.url, '/directory/genesis', genesis);
      expect(answer.status, answer.text).to.equal(201);
      return { suffix: (answer.json.did as string).slice('did:sync:'.length), key, head: operationHash(genesis) } satisfies Made;
    });
    made.push(...results);
    for (const [i, identity] of made.entries()) {
      if (i % 10 === 0) {
        const next = newOperationKey();
        const update = syncOp(identity.key, { rotation_keys: [next.did, identity.key.did], verification_methods: {}, services: { pds: { type: 'AtprotoPersonalDataServer', endpoint: `https://pds${i}.example` } }, handle: `renamed${i}.example` }, identity.head);
        const answer = await postJson(origin.url, `/directory/update/${identity.suffix}`, update);
        expect(answer.status, answer.text).to.equal(200);
        identity.head = answer.json.hash;
      }
      if (i % 20 === 5) {
        const answer = await postJson(origin.url, `/directory/revoke/${identity.suffix}`, revokeOp(identity.key, identity.head));
        expect(answer.status, answer.text).to.equal(200);
      }
    }
    figures['create_ms'] = Date.now() - started;
    expect((await get(origin.url, '/health')).json.directory).to.include({ identities: IDENTITIES, revoked: IDENTITIES / 20, skipped: 0 });
  });

  it('the exported log imports into the mirror with nothing refused, every operation re-checked there', async () => {
    const started = Date.now();
    const exported = await request(origin.url, 'GET', '/v1/log/export');
    expect(exported.status, exported.text.slice(0, 300)).to.equal(200);
    const imported = await request(mirror.url, 'POST', '/v1/log/import', { headers: { 'content-type': 'application/x-ndjson' }, body: exported.text });
    expect(imported.status, imported.text).to.equal(200);
    expect(imported.json).to.include({ records_refused: 0, checksum: 'verified' });
    figures['export_import_ms'] = Date.now() - started;
    figures['records_imported'] = imported.json.records_inserted;
    // The configuration record came with the log: the mirror's directory is on.
    expect((await get(mirror.url, '/health')).json.directory).to.include({ enabled: true, identities: IDENTITIES, revoked: IDENTITIES / 20, skipped: 0 });
  });

  it('the mirror serves identical did.json and operations for all of them; offline verification reproduces each document', async () => {
    const started = Date.now();
    let documents = 0;
    let revoked = 0;
    await mapLimit(made, 8, async ({ suffix }) => {
      const [a, b, opsA, opsB] = await Promise.all([
        get(origin.url, `/directory/${suffix}/did.json`),
        get(mirror.url, `/directory/${suffix}/did.json`),
        get(origin.url, `/directory/${suffix}/operations`),
        get(mirror.url, `/directory/${suffix}/operations`),
      ]);
      expect(b.status).to.equal(a.status);
      expect(b.text, suffix).to.equal(a.text);
      expect(opsB.status).to.equal(200);
      expect(opsB.text).to.equal(opsA.text);
      const verified = verifyOperations(JSON.parse(opsB.text));
      expect(verified.ok, JSON.stringify(verified.failure)).to.equal(true);
      if (a.status === 200) {
        documents++;
        expect(verified.document).to.equal(b.text);
      } else {
        revoked++;
        expect(a.status).to.equal(410);
        expect(verified).to.include({ state: 'revoked', document: null });
      }
    });
    expect(documents + revoked).to.equal(IDENTITIES);
    expect(revoked).to.equal(IDENTITIES / 20);
    figures['compare_ms'] = Date.now() - started;
    // Handles resolve the same on both.
    for (const i of [1, 10, 20, 25]) {
      const handle = i % 10 === 0 ? `renamed${i}.example` : `user${i}.example`;
      const [a, b] = await Promise.all([get(origin.url, `/directory/handle/${handle}`), get(mirror.url, `/directory/handle/${handle}`)]);
      expect(b.text).to.equal(a.text);
    }
  });
});
