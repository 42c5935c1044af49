/**
 * The grant-chain ingest gate (spec §5.4 rules 6 and 7) through the real
 * ingest path: a Loom with the ledger and auth plugins on SQLite in a
 * temporary directory, grant records written on the auth thread exactly as
 * the auth plugin writes them (CredentialService.write, writeGrant), and the
 * auth plugin's credentials fold read back for what came into force.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolve } from '../../core/di/token.js';
import { FoldEngineToken, type FoldEngine } from '../../core/engine/fold-engine.js';
import { ENGINE_WRITE, IngestorToken, type Ingestor } from '../../core/engine/ingest.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { silentLogger } from '../../core/plugin/logger.js';
import { computeRecordId } from '../../core/records/record-id.js';
import type { JsonObject } from '../../core/records/json.js';
import { createLoom, type Loom } from '../../core/server/create-loom.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { ledgerPlugin } from '../ledger/index.js';
import { authPlugin } from './index.js';
import { AUTH_ACTOR, AUTH_THREAD, KIND_GRANT } from './auth-thread.js';
import { CredentialService } from './credential-service.js';
import { credentialsFold, type CredentialsState } from './credentials-fold.js';
import { MAX_CHAIN_HOPS, type GrantFields } from './grant-graph.js';

const OTHER_THREAD = 'th_' + 'c'.repeat(64);

describe('grant-chain ingest gate through the real ingest path (spec §5.4 rules 6, 7)', function () {
  let dir: string;
  let store: SqliteRecordStore;
  let loom: Loom;
  let ingestor: Ingestor;
  let folds: FoldEngine;
  /** Reads the same fold the auth plugin's CredentialService reads (it is bound in the plugin's own container). */
  let credentials: CredentialService;
  /** A straight line of grants: line[0] a root, line[i] the only child of line[i-1], i hops deep. */
  const line: string[] = [];

  const state = (): CredentialsState => credentials.state();
  const now = Date.now();
  const expiresAt = new Date(now + 24 * 3600 * 1000).toISOString();

  function grantFields(chain: readonly string[], extra: Partial<GrantFields> = {}): GrantFields {
    return {
      scopes: ['records:read', 'records:write'],
      caveats: {},
      expires_at: expiresAt,
      chain,
      iss: 'did:sync:system:test-admin',
      aud: `did:sync:user:holder-${chain.length}`,
      guard: null,
      created_at: new Date(now).toISOString(),
      label: null,
      invite_id: null,
      note: null,
      ...extra,
    };
  }

  /** The record the auth plugin writes for a grant (writeGrant + CredentialService.write), parents = [parent grant id] unless given. */
  function grantRecord(fields: GrantFields, parents: readonly string[] = fields.chain.slice(0, 1)) {
    const body = { kind: KIND_GRANT, ...fields, caveats: { ...fields.caveats }, scopes: [...fields.scopes], chain: [...fields.chain] } as unknown as JsonObject;
    return { thread: AUTH_THREAD, actor: AUTH_ACTOR, act: 'LEARN' as const, body, clock: state().clock + 1, data_type: 'SCALAR' as const, parents: [...parents].sort(), judged_by: null };
  }

  async function write(fields: GrantFields, parents?: readonly string[]): Promise<string> {
    const { stored, created } = await ingestor.ingest(ENGINE_WRITE, grantRecord(fields, parents));
    expect(created).to.equal(true);
    return stored.record.id;
  }

  /** Expects the ingest to be refused with `code`, and nothing stored or folded. */
  async function expectRefused(input: ReturnType<typeof grantRecord>, code: string, message?: RegExp): Promise<LoomError> {
    const id = computeRecordId(input);
    const before = { clock: state().clock, grants: state().grants.size };
    let error: unknown = null;
    try {
      await ingestor.ingest(ENGINE_WRITE, input);
    } catch (caught) {
      error = caught;
    }
    expect(error, 'the ingest should have been refused').to.be.instanceOf(LoomError);
    const loomError = error as LoomError;
    expect(loomError.code, loomError.message).to.equal(code);
    if (message) expect(loomError.message).to.match(message);
    expect(await store.get(id), 'the refused record is not stored').to.equal(undefined);
    expect(state().grants.has(id)).to.equal(false);
    expect({ clock: state().clock, grants: state().grants.size }).to.deep.equal(before);
    return loomError;
  }

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'loom-grant-chain-'));
    store = new SqliteRecordStore({ path: join(dir, 'loom.sqlite'), durability: 'normal' });
    loom = await createLoom({
      store,
      dataDir: dir,
      port: 0,
      logger: silentLogger,
      plugins: [ledgerPlugin, { plugin: authPlugin, options: { required: false } }],
    });
    await loom.initialize();
    ingestor = resolve(loom.container, IngestorToken);
    folds = resolve(loom.container, FoldEngineToken);
    credentials = new CredentialService(resolve(loom.container, RecordWriterToken), { state: () => folds.globalState(credentialsFold.name) });
    expect(ingestor.gateNames()).to.include('auth.grant-chain');
    // A root and 64 descendants: the last one's chain has exactly 64 hops.
    line.push(await write(grantFields([])));
    for (let i = 1; i <= MAX_CHAIN_HOPS; i++) {
      const parent = line[i - 1]!;
      line.push(await write(grantFields([parent, ...state().grants.get(parent)!.chain])));
    }
  });

  after(async function () {
    await loom?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const chainBelow = (parent: string) => [parent, ...state().grants.get(parent)!.chain];

  it('stores a 64-hop chain, and the grant at its end is in force', async () => {
    const last = line[MAX_CHAIN_HOPS]!;
    const node = state().grants.get(last)!;
    expect(node.chain).to.have.length(64);
    expect(node.depth).to.equal(64);
    expect(node.chain).to.deep.equal(line.slice(0, MAX_CHAIN_HOPS).reverse());
    expect(state().grants.standing(last, Date.now())).to.equal('in_force');
    expect(folds.globalState<CredentialsState>(credentialsFold.name).grants.get(last)).to.equal(node);
    const stored = await store.get(last);
    expect(stored?.record.parents).to.deep.equal([line[MAX_CHAIN_HOPS - 1]]);
    // The grant fold serves the same standing over HTTP.
    const answer = await loom.server.inject({ method: 'GET', url: '/v1/folds/grant' });
    expect(answer.statusCode, answer.payload).to.equal(200);
    const grants = (JSON.parse(answer.payload) as { value: { grants: Array<{ grant_id: string; standing: string; depth: number }> } }).value.grants;
    expect(grants.find((g) => g.grant_id === last)).to.include({ standing: 'in_force', depth: 64 });
    expect(grants.filter((g) => g.standing === 'in_force')).to.have.length(MAX_CHAIN_HOPS + 1);
  });

  it('refuses a 65-hop chain with GRANT_REFUSED, storing nothing', async () => {
    const chain = chainBelow(line[MAX_CHAIN_HOPS]!);
    expect(chain).to.have.length(65);
    await expectRefused(grantRecord(grantFields(chain)), 'GRANT_REFUSED', /65 hops; at most 64/);
  });

  it('refuses a chain claiming ancestry its parents walk does not support', async () => {
    const parent = line[5]!;
    const honest = chainBelow(parent);
    // Skips a hop.
    await expectRefused(grantRecord(grantFields([honest[0]!, ...honest.slice(2)])), 'GRANT_REFUSED', /does not support/);
    // Names a grant that is not an ancestor (a later one on the line).
    await expectRefused(grantRecord(grantFields([parent, line[9]!, ...honest.slice(2)])), 'GRANT_REFUSED', /does not support/);
    // Stops short of the root.
    await expectRefused(grantRecord(grantFields(honest.slice(0, -1))), 'GRANT_REFUSED', /does not support/);
    // Claims ancestry past the root.
    await expectRefused(grantRecord(grantFields([...honest, line[20]!])), 'GRANT_REFUSED', /does not support/);
    // Cites one parent but claims to descend from another.
    await expectRefused(grantRecord(grantFields(honest), [line[7]!]), 'GRANT_REFUSED', /chain starts at/);
    // Claims a parent the record does not cite at all.
    await expectRefused(grantRecord(grantFields(honest), []), 'GRANT_REFUSED', /cite no grant/);
    // A root (empty chain) citing a grant among its parents.
    await expectRefused(grantRecord(grantFields([]), [parent]), 'GRANT_REFUSED', /root grant/);
    // Names a grant twice: not even a well-formed grant body.
    await expectRefused(grantRecord(grantFields([parent, line[4]!, parent])), 'INVALID_SHAPE', /names a grant twice/);
    // The honest chain is admitted.
    const id = await write(grantFields(honest, { aud: 'did:sync:user:honest' }));
    expect(state().grants.standing(id, Date.now())).to.equal('in_force');
  });

  it('refuses a child substituting its parent\'s guard expression (rule 6)', async () => {
    const guard = 'actor == "did:sync:user:alice"';
    const guarded = await write(grantFields([line[0]!, ...state().grants.get(line[0]!)!.chain], { guard, aud: 'did:sync:user:guarded' }));
    // Admitted by the door, but no guard evaluator is installed: it is not in force (fail closed).
    expect(state().grants.standing(guarded, Date.now())).to.equal('not_in_force');
    const chain = chainBelow(guarded);
    await expectRefused(grantRecord(grantFields(chain, { guard: 'true' })), 'GRANT_REFUSED', /guard/);
    await expectRefused(grantRecord(grantFields(chain, { guard: null })), 'GRANT_REFUSED', /guard/);
  });

  it('admits a record the fold then judges: a widened grant is stored but not in force', async () => {
    const parent = line[3]!;
    const id = await write(grantFields(chainBelow(parent), { scopes: ['admin'], aud: 'did:sync:user:greedy' }));
    expect(await store.get(id)).to.not.equal(undefined);
    expect(state().grants.standing(id, Date.now())).to.equal('not_in_force');
    expect(state().grants.get(id)!.fault).to.match(/rule 1/);
  });

  it('refuses a grant-kind record on any other thread with FORBIDDEN (reserved kinds), through the engine door and over HTTP', async () => {
    const fields = grantFields([]);
    const input = {
      thread: OTHER_THREAD,
      actor: 'did:sync:user:mallory',
      act: 'LEARN' as const,
      body: { kind: KIND_GRANT, ...fields, caveats: {}, scopes: [...fields.scopes], chain: [] } as unknown as JsonObject,
      clock: 0,
      data_type: 'SCALAR' as const,
      parents: [],
      judged_by: null,
    };
    let error: unknown = null;
    try {
      await ingestor.ingest(ENGINE_WRITE, input);
    } catch (caught) {
      error = caught;
    }
    expect(error).to.be.instanceOf(LoomError);
    expect((error as LoomError).code).to.equal('FORBIDDEN');
    expect((error as LoomError).message).to.match(/reserved to the auth plugin/);
    expect(await store.get(computeRecordId(input))).to.equal(undefined);

    const { judged_by: _judged, ...wire } = input;
    const answer = await loom.server.inject({ method: 'POST', url: '/v1/records', payload: wire });
    expect(answer.statusCode, answer.payload).to.equal(403);
    expect(JSON.parse(answer.payload)).to.include({ code: 'FORBIDDEN' });
    // A chain claimed on the auth thread over HTTP never reaches the grant gate: the thread is the plugin's alone.
    const onAuth = await loom.server.inject({ method: 'POST', url: '/v1/records', payload: { ...wire, thread: AUTH_THREAD } });
    expect(onAuth.statusCode, onAuth.payload).to.equal(403);
    expect(JSON.parse(onAuth.payload)).to.include({ code: 'FORBIDDEN' });
    expect(state().grants.has(computeRecordId({ ...input, thread: AUTH_THREAD }))).to.equal(false);
  });
});
