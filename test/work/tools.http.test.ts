/**
 * Loom's own member tools (plugins/work/tools/) on a real server with auth
 * required: each tool's `run` with a member's credential answers real data,
 * under the read policy and the ingest gates an HTTP client of that grant
 * meets; every refusal writes nothing. And the define door now accepts them.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../core/plugin/logger.js';
import { createLoom } from '../../core/server/create-loom.js';
import { ledgerPlugin } from '../../plugins/ledger/index.js';
import { SqliteRecordStore } from '../../storage/sqlite/index.js';
import { credentialCaller, type Caller } from '../../core/access/caller.js';
import { resolve } from '../../core/di/token.js';
import { LoomError } from '../../core/errors/loom-error.js';
import type { JsonObject } from '../../core/records/json.js';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import { membersPlugin, ToolRegistryToken, type ToolRegistry } from '../../plugins/members/index.js';
import { FindServiceToken } from '../../plugins/search/index.js';
import { workPlugin } from '../../plugins/work/index.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, newThread, recordInput, request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';

const MEMBER = 'did:sync:agent:x';
const LOOM_TOOLS = ['dispatch', 'fan_out', 'find', 'fold_thread', 'join', 'list_files', 'propose_blueprint', 'query_records', 'read_file', 'read_thread', 'trust_query', 'write_file', 'write_record'];

describe('Loom tools for member work loops (real server)', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  let registry: ToolRegistry;
  let thA: string;
  let thB: string;
  const member = (scopes: string[]): Caller => credentialCaller({ principal: MEMBER, actors: [MEMBER], scopes });
  const reader = member(['records:read']);
  const worker = member(['records:read', 'records:write']);
  const grained = () => member([`thread:${thA}:read`]);
  const runThread = newThread('run');
  const run = (tool: string, input: JsonObject, caller: Caller): Promise<any> =>
    registry.get(tool)!.run(input, { caller, member: MEMBER, runThread, callRecord: '0'.repeat(64), signal: new AbortController().signal });
  const head = () => server.loom.engine.store.watermark();
  /** The tool refuses with `code` and writes nothing. */
  const refused = async (code: string, call: () => Promise<unknown>) => {
    const before = await head();
    const error = await call().then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error, `expected ${code}`).to.be.instanceOf(LoomError);
    expect((error as LoomError).code).to.equal(code);
    expect(await head(), `${code} wrote nothing`).to.equal(before);
  };
  const call = (method: string, path: string, json?: unknown): Promise<HttpAnswer> => request(server.url, method, path, { headers: bearer(admin), ...(json === undefined ? {} : { json }) });
  const post = async (thread: string, clock: number, body: JsonObject, act = 'KNOW') => {
    const answer = await call('POST', '/v1/records', recordInput({ thread, actor: admin.did, act, clock, body }));
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.id as string;
  };

  before(async () => {
    // Small chunks, so a write_file of a few hundred KB is an upload of several.
    server = await startServer({ auth: { required: true }, data: { chunkSizeBytes: 64 * 1024 } });
    admin = await bootstrapAdmin(server.url);
    registry = resolve(server.loom.container, ToolRegistryToken);
    thA = newThread('tools-a');
    thB = newThread('tools-b');
    await post(thA, 0, { kind: 'note', text: 'the zebrafish plan for thread a' }, 'INTEND');
    await post(thA, 1, { kind: 'note', text: 'second record of a' });
    await post(thA, 2, { kind: 'note', text: 'third record of a' });
    await post(thB, 0, { kind: 'note', text: 'the zebrafish secret of thread b' });
  });
  after(async () => {
    await server?.stop();
  });

  it('contributes every Loom tool (search, trust, rules and the data plane are loaded), with the test tools beside them', () => {
    const ours = registry.list().filter((tool) => tool.plugin === 'work');
    expect(ours.map((tool) => tool.name)).to.deep.equal(LOOM_TOOLS);
    for (const tool of ours) {
      expect(tool.description.length, tool.name).to.be.greaterThan(80);
      expect(tool.readOnly, tool.name).to.equal(tool.scope === 'records:read');
    }
    expect(registry.get('write_file')!.destructive).to.equal(true);
    expect(registry.get('dispatch')!.scope).to.equal('records:write');
  });

  it('read_thread answers compact records oldest first, paged by after and limit', async () => {
    const first = await run('read_thread', { thread: thA, limit: 2 }, reader);
    expect(first.records).to.have.length(2);
    expect(Object.keys(first.records[0]).sort()).to.deep.equal(['act', 'actor', 'body', 'created_at', 'id', 'parents', 'sequence', 'thread']);
    expect(first.records[0]).to.include({ thread: thA, actor: admin.did, act: 'INTEND' });
    expect(first.next_after).to.be.a('number');
    const rest = await run('read_thread', { thread: thA, after: first.next_after }, reader);
    expect(rest.records.map((r: any) => r.body.text)).to.deep.equal(['third record of a']);
    expect(rest.next_after).to.equal(null);
    await refused('INVALID_SHAPE', () => run('read_thread', { thread: 'th_nope' }, reader));
  });

  it('a member holding only thread:<a>:read reads a, sees nothing of b, and writes nowhere', async () => {
    expect((await run('read_thread', { thread: thA }, grained())).records).to.have.length(3);
    expect((await run('read_thread', { thread: thB }, grained())).records).to.deep.equal([]);
    expect((await run('fold_thread', { thread: thB }, grained())).value.record_count).to.equal(0);
    const matched = await run('query_records', { filter: { 'body.kind': 'note' } }, grained());
    expect(new Set(matched.records.map((r: any) => r.thread))).to.deep.equal(new Set([thA]));
    await refused('SCOPE_FORBIDDEN', () => run('write_record', { thread: thA, act: 'KNOW', body: { text: 'x' } }, grained()));
    await refused('SCOPE_FORBIDDEN', () => run('write_file', { path: '/x.txt', content: 'x' }, grained()));
    await refused('SCOPE_FORBIDDEN', () => run('dispatch', { actor_did: 'did:sync:user:bob', goal: 'g', thread_id: thA }, grained()));
  });

  it('write_record writes as the member, parented only as asked; without records:write it is refused as the ingest door refuses', async () => {
    const plain = await run('write_record', { thread: thA, act: 'KNOW', body: { kind: 'note', text: 'by the member' } }, worker);
    expect(plain).to.include({ thread: thA, actor: MEMBER, act: 'KNOW', created: true });
    const stored = await call('GET', `/v1/records/${plain.id}`);
    expect(stored.json).to.include({ actor: MEMBER, thread: thA });
    expect(stored.json.parents).to.deep.equal([]);
    const reply = await run('write_record', { thread: thA, act: 'KNOW', body: { text: 'a reply' }, parents: [plain.id] }, worker);
    expect((await call('GET', `/v1/records/${reply.id}`)).json.parents).to.deep.equal([plain.id]);
    // The same write by an HTTP client holding only records:read is SCOPE_FORBIDDEN at the door.
    const readOnly = await createAccount(server.url, admin, 'read-only', ['records:read']);
    const door = await request(server.url, 'POST', '/v1/records', { headers: bearer(readOnly), json: recordInput({ thread: thA, actor: readOnly.did, act: 'KNOW', body: {} }) });
    expectEnvelope(door, 403, 'SCOPE_FORBIDDEN');
    await refused('SCOPE_FORBIDDEN', () => run('write_record', { thread: thA, act: 'KNOW', body: { text: 'x' } }, reader));
  });

  it('write_record lets the kernel refusals through with their codes, writing nothing', async () => {
    const bad = await call('POST', '/v1/records', recordInput({ thread: thA, actor: admin.did, act: 'SHOUT', clock: 9, body: {} }));
    expect(bad.status).to.equal(400);
    await refused(bad.json.code, () => run('write_record', { thread: thA, act: 'SHOUT', body: {} }, worker));
    // Reserved kinds mean something only on the auth thread (an ingest gate of the auth plugin).
    await refused('FORBIDDEN', () => run('write_record', { thread: thA, act: 'KNOW', body: { kind: 'core.identity.binding.v1' } }, worker));
    // Configuration records need config:write (an ingest gate of the auth plugin), whatever the coarse scope.
    await refused('SCOPE_FORBIDDEN', () => run('write_record', { thread: TH_ENGINE_CONFIG, act: 'KNOW', body: { kind: 'core.config.v1' } }, worker));
  });

  it('query_records runs the structured query of POST /v1/records/query, capped for the model', async () => {
    const answer = await run('query_records', { thread: thA, filter: { act: 'KNOW' }, sort: { sequence: 1 }, limit: 1 }, reader);
    expect(answer.records).to.have.length(1);
    expect(answer.records[0].act).to.equal('KNOW');
    expect(answer.capped).to.equal(true);
    expect(answer.matched_total).to.be.at.least(2);
    await refused('INVALID_QUERY', () => run('query_records', { filter: { nope: 1 } }, reader));
    await refused('INVALID_QUERY', () => run('query_records', { thread: 'th_x' }, reader));
  });

  it('fold_thread answers thread_state by default and refuses an unknown fold', async () => {
    const answer = await run('fold_thread', { thread: thB }, reader);
    expect(answer).to.include({ fold: 'thread_state', thread: thB });
    expect(answer.value.record_count).to.equal(1);
    await refused('NOT_FOUND', () => run('fold_thread', { thread: thB, fold: 'no_such_fold' }, reader));
  });

  it('find answers the search plugin\'s hits the member may read', async () => {
    await resolve(server.loom.container, FindServiceToken).caughtUp();
    const all = await run('find', { q: 'zebrafish', types: ['thread'] }, reader);
    expect(new Set(all.hits.map((hit: any) => hit.thread))).to.deep.equal(new Set([thA, thB]));
    const some = await run('find', { q: 'zebrafish' }, grained());
    expect(some.hits.map((hit: any) => hit.thread)).to.deep.equal([thA]);
    await refused('EMPTY_QUERY', () => run('find', { q: '   ' }, reader));
  });

  it('trust_query answers the trust rows of the member\'s view', async () => {
    const answer = await run('trust_query', { domain: 'general' }, reader);
    expect(answer.as_of).to.be.a('string');
    expect(answer.rows).to.be.an('array');
    expect(answer.more).to.equal(false);
  });

  it('dispatch writes the DO as the member on the derived dispatch thread; the parent must be readable', async () => {
    const answer = await run('dispatch', { actor_did: 'did:sync:user:bob', goal: 'summarise thread a', thread_id: thA }, worker);
    expect(answer).to.include({ target: 'did:sync:user:bob', status: 'queued' });
    const record = (await call('GET', `/v1/records/${answer.id}`)).json;
    expect(record).to.include({ actor: MEMBER, act: 'DO', thread: answer.thread });
    expect(record.body).to.include({ goal: 'summarise thread a', parent_thread: thA });
    // Default parent: the run thread, which holds nothing yet.
    await refused('NOT_FOUND', () => run('dispatch', { actor_did: 'did:sync:user:bob', goal: 'g' }, worker));
  });

  it('write_file, list_files and read_file go through the data plane as the member, read_file saying when it stops short', async () => {
    const text = `# Plan\n${'é'.repeat(50)}\n`;
    const written = await run('write_file', { path: '/notes/plan.md', content: text }, worker);
    expect(written).to.include({ namespace: 'default', path: '/notes/plan.md', size_bytes: Buffer.byteLength(text) });
    const node = (await call('GET', '/v1/data/stat?path=/notes/plan.md')).json;
    expect(node.provenance.work_thread).to.equal(runThread);
    const record = (await call('GET', `/v1/records/${written.record_id}`)).json;
    expect(record.actor).to.equal(MEMBER);
    const listing = await run('list_files', { path: '/notes' }, reader);
    expect(listing.entries).to.deep.equal([{ path: '/notes/plan.md', kind: 'file', size_bytes: Buffer.byteLength(text), content_type: 'text/plain; charset=utf-8', modified_at: listing.entries[0].modified_at }]);
    const whole = await run('read_file', { path: '/notes/plan.md' }, reader);
    expect(whole).to.include({ content: text, truncated: false, binary: false });
    // 10 bytes end inside the third 'é': the cut character is left out, not garbled.
    const cut = await run('read_file', { path: '/notes/plan.md', max_bytes: 10 }, reader);
    expect(cut).to.include({ content: '# Plan\né', truncated: true, bytes_read: 10 });
    await refused('IS_A_DIRECTORY', () => run('read_file', { path: '/notes' }, reader));
    await refused('PATH_NOT_FOUND', () => run('read_file', { path: '/nope.txt' }, reader));
    await refused('SCOPE_FORBIDDEN', () => run('write_file', { path: '/notes/other.md', content: 'x' }, reader));
    // A member whose grain is one thread sees none of the files.
    await refused('PATH_NOT_FOUND', () => run('read_file', { path: '/notes/plan.md' }, grained()));
  });

  it('write_file sends a file larger than a chunk in several, and read_file reads it back', async () => {
    const content = 'abcdefghij\n'.repeat(20_000);
    const written = await run('write_file', { path: '/big.txt', content }, worker);
    expect(written.size_bytes).to.equal(content.length);
    expect(written.content_hash).to.equal(createHash('sha256').update(content).digest('hex'));
    const back = await run('read_file', { path: '/big.txt', max_bytes: 256 * 1024 }, reader);
    expect(back).to.include({ truncated: false, bytes_read: content.length });
    expect(back.content).to.equal(content);
  });

  it('a member granted one namespace writes and reads files there by default, and nowhere else', async () => {
    // What `loom namespace create acme` writes: records in a namespace need it declared.
    const declared = await call('POST', '/v1/records', { thread: 'th_namespace_registry', actor: admin.did, act: 'LEARN', body: { namespace_id: 'acme', state: 'active' }, clock: 0, data_type: 'SCALAR' });
    expect(declared.status, declared.text).to.equal(201);
    const tenant = member(['namespace:acme:read', 'namespace:acme:write']);
    const written = await run('write_file', { path: '/t.txt', content: 'tenant text' }, tenant);
    expect(written.namespace).to.equal('acme');
    expect((await run('read_file', { path: '/t.txt' }, tenant)).content).to.equal('tenant text');
    expect((await run('list_files', {}, tenant)).entries.map((e: any) => e.path)).to.deep.equal(['/t.txt']);
    await refused('SCOPE_FORBIDDEN', () => run('write_file', { path: '/t.txt', content: 'x', namespace: 'default' }, tenant));
    await refused('PATH_NOT_FOUND', () => run('read_file', { path: '/notes/plan.md', namespace: 'default' }, tenant));
  });

  it('the define door accepts work_loop.tools naming a Loom tool', async () => {
    const writer = await createAccount(server.url, admin, 'definer', ['records:read', 'records:write']);
    const answer = await request(server.url, 'POST', '/v1/actors/define', { headers: bearer(writer), json: { label: 'Tooled', work_loop: { tools: ['read_thread', 'write_record'] } } });
    expect(answer.status, answer.text).to.equal(201);
  });
});

describe('Loom tools with only the work plugin\'s required dependencies', function () {
  this.timeout(60_000);
  it('contributes only the tools over the kernel: those of optional plugins need those plugins loaded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-work-tools-'));
    const loom = await createLoom({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite') }), dataDir: dir, port: 0, logger: silentLogger, insecureLocalhost: true, plugins: [ledgerPlugin, membersPlugin, workPlugin] });
    try {
      await loom.initialize();
      const names = resolve(loom.container, ToolRegistryToken).list().map((tool) => tool.name);
      expect(names).to.deep.equal(['fan_out', 'fold_thread', 'join', 'propose_blueprint', 'query_records', 'read_thread', 'write_record']);
    } finally {
      await loom.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('Loom tools without the work plugin', function () {
  this.timeout(60_000);
  it('registers none of the Loom tools (define then refuses their names: TOOL_NOT_DECLARED, tested in members)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loom-no-work-'));
    const loom = await createLoom({ store: new SqliteRecordStore({ path: join(dir, 'loom.sqlite') }), dataDir: dir, port: 0, logger: silentLogger, insecureLocalhost: true, plugins: [ledgerPlugin, membersPlugin] });
    try {
      await loom.initialize();
      expect(resolve(loom.container, ToolRegistryToken).list().map((tool) => tool.name)).to.deep.equal([]);
    } finally {
      await loom.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
