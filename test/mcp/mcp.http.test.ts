/**
 * POST /v1/mcp against a real reference server on 127.0.0.1 (auth required,
 * SQLite, the work loop wired to the Anthropic fake), driven by the official
 * SDK `Client` over `StreamableHTTPClientTransport`, plus raw HTTP for the
 * transport's refusals. Every refusal is checked by code and status, and
 * every refused write leaves the store's watermark where it was.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bearer, createAccount, type Credential } from '../helpers/auth.js';
import { expectEnvelope, newThread, request } from '../helpers/http-server.js';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { loopWorld, type LoopWorld } from '../work/loop-harness.js';

const JSON_AND_SSE = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** A refused tool call: the Loom envelope, carried as the result's text (never as structuredContent). */
function refusal(answer: unknown): Record<string, unknown> {
  const result = answer as { content?: unknown; structuredContent?: unknown; isError?: boolean };
  expect(result.isError, JSON.stringify(result)).to.equal(true);
  expect(result.structuredContent, 'no structuredContent on a refusal').to.equal(undefined);
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

describe('MCP over Streamable HTTP (POST /v1/mcp)', function () {
  this.timeout(60_000);
  let world: LoopWorld;
  let reader: Credential;
  let writer: Credential;
  const clients: Client[] = [];

  async function connect(who: Credential | null): Promise<Client> {
    const client = new Client({ name: 'loom-test', version: '1.0.0' });
    const headers = who ? bearer(who) : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(world.server.url + '/v1/mcp'), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }
  const watermark = () => world.server.loom.engine.store.watermark();
  const raw = (headers: Record<string, string>, body: unknown = INIT, method = 'POST') =>
    request(world.server.url, method, '/v1/mcp', { headers: { accept: JSON_AND_SSE, ...headers }, ...(method === 'POST' ? { json: body } : {}) });

  before(async () => {
    world = await loopWorld(VENDORS[0]!);
    reader = await createAccount(world.server.url, world.admin, 'mcp-reader', ['records:read']);
    writer = await createAccount(world.server.url, world.admin, 'mcp-writer', ['records:read', 'records:write', 'threads:write']);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await world?.stop();
  });

  it('lists tools in a deterministic order, with valid names, schemas and derived annotations; mcp_tools names exactly them', async () => {
    const client = await connect(reader);
    expect(client.getServerVersion()?.name).to.equal('loom');
    expect(client.getServerCapabilities()?.tools).to.be.an('object');
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).to.deep.equal([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    for (const tool of tools) {
      expect(tool.name).to.match(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.inputSchema.type).to.equal('object');
      if (tool.outputSchema) expect(tool.outputSchema.type).to.equal('object');
    }
    expect(names).to.include.members(['read_thread', 'write_record', 'query_records', 'fold_thread', 'createThread', 'startWorkLoop', 'getWorkLoop', 'cancelWorkLoop']);
    // Tools that only a run can call are not published.
    expect(names).to.not.include.members(['fan_out', 'join']);
    const by = (name: string) => tools.find((tool) => tool.name === name)!.annotations!;
    expect(by('read_thread')).to.include({ readOnlyHint: true, openWorldHint: false, idempotentHint: true });
    expect(by('getWorkLoop')).to.include({ readOnlyHint: true, openWorldHint: false });
    expect(by('write_record')).to.include({ readOnlyHint: false, destructiveHint: false, openWorldHint: false });
    expect(by('createThread')).to.include({ readOnlyHint: false, destructiveHint: false });
    expect(by('cancelWorkLoop')).to.include({ destructiveHint: true });
    expect(by('write_file')).to.include({ destructiveHint: true });
    expect(by('startWorkLoop')).to.include({ openWorldHint: true });
    expect(by('dispatch')).to.include({ openWorldHint: true });
    const manifest = await world.call('GET', '/v1/capabilities', reader);
    expect(manifest.json.mcp_tools).to.deep.equal(names);
    expect(manifest.json.capabilities['mcp.streamable_http']).to.equal(true);
  });

  it('calls a write tool and a read tool: structuredContent, with its text mirror in content', async () => {
    const client = await connect(writer);
    const opened = await client.callTool({ name: 'createThread', arguments: { goal: 'plan the launch' } });
    expect(opened.isError ?? false).to.equal(false);
    const thread = (opened.structuredContent as { thread: string }).thread;
    expect(thread).to.match(/^th_/);
    expect(JSON.parse((opened.content as { type: string; text: string }[])[0]!.text)).to.deep.equal(opened.structuredContent);

    const written = await client.callTool({ name: 'write_record', arguments: { thread, act: 'KNOW', body: { kind: 'note', text: 'from an MCP client' } } });
    expect(written.isError ?? false).to.equal(false);
    expect(written.structuredContent).to.include({ thread, act: 'KNOW', actor: writer.did, created: true });

    const read = await client.callTool({ name: 'read_thread', arguments: { thread } });
    const records = (read.structuredContent as { records: { act: string; body: { text?: string } }[] }).records;
    expect(records.map((record) => record.act)).to.deep.equal(['INTEND', 'KNOW']);
    expect(records[1]!.body.text).to.equal('from an MCP client');
    expect(JSON.parse((read.content as { text: string }[])[0]!.text)).to.deep.equal(read.structuredContent);
  });

  it('a tool outside the credential’s scope is an isError result with SCOPE_FORBIDDEN, and writes nothing', async () => {
    const client = await connect(reader);
    const before = await watermark();
    const viaRegistry = await client.callTool({ name: 'write_record', arguments: { thread: newThread(), act: 'KNOW', body: { text: 'x' } } });
    expect(viaRegistry.isError).to.equal(true);
    expect(refusal(viaRegistry)).to.include({ object: 'error', code: 'SCOPE_FORBIDDEN', scope: 'records:write' });
    const viaOperation = await client.callTool({ name: 'createThread', arguments: { goal: 'not mine to open' } });
    expect(viaOperation.isError).to.equal(true);
    expect(refusal(viaOperation)).to.include({ object: 'error', code: 'SCOPE_FORBIDDEN' });
    expect(await watermark()).to.deep.equal(before);
  });

  it('a tool runs under the read policy: a thread-grained reader reads its thread, and nothing of another', async () => {
    const client = await connect(writer);
    const mine = ((await client.callTool({ name: 'createThread', arguments: { goal: 'visible' } })).structuredContent as { thread: string }).thread;
    const other = ((await client.callTool({ name: 'createThread', arguments: { goal: 'hidden' } })).structuredContent as { thread: string }).thread;
    const grained = await createAccount(world.server.url, world.admin, 'mcp-grained', [`thread:${mine}:read`]);
    const narrow = await connect(grained);
    const visible = await narrow.callTool({ name: 'read_thread', arguments: { thread: mine } });
    expect((visible.structuredContent as { records: unknown[] }).records).to.have.length(1);
    const hidden = await narrow.callTool({ name: 'read_thread', arguments: { thread: other } });
    expect((hidden.structuredContent as { records: unknown[] }).records).to.deep.equal([]);
  });

  it('startWorkLoop runs under the grant the start door writes, never the caller’s bearer; getWorkLoop and cancelWorkLoop follow it', async () => {
    const client = await connect(writer);
    const index = world.fake.requests.length;
    world.fake.enqueue(script.text('working on it, slowly', { faults: { dripMs: 50 } }));
    const started = await client.callTool({ name: 'startWorkLoop', arguments: { goal: 'summarise the launch plan' } });
    expect(started.isError ?? false, JSON.stringify(started)).to.equal(false);
    const thread = (started.structuredContent as { thread: string; object: string }).thread;
    expect(started.structuredContent).to.include({ object: 'work_loop', status: 'started' });
    while (world.fake.requests.length <= index) await new Promise((resolve) => setTimeout(resolve, 5));
    // The provider saw Loom's own key, never the MCP caller's bearer.
    const sent = JSON.stringify(world.fake.requests[index]!.headers);
    expect(sent).to.not.include(writer.token);
    const opening = (await world.records(thread)).find((record) => record.body.kind === 'core.work.run.v1');
    expect(opening.body.grant).to.be.an('object');

    const status = await client.callTool({ name: 'getWorkLoop', arguments: { thread } });
    expect(status.structuredContent).to.include({ object: 'work_loop_status', thread });
    // A credential that may read only another thread does not see this run: the read policy answers as for a missing one.
    const stranger = await connect(await createAccount(world.server.url, world.admin, 'mcp-stranger', [`thread:${newThread()}:read`]));
    const refused = await stranger.callTool({ name: 'getWorkLoop', arguments: { thread } });
    expect(refused.isError).to.equal(true);
    expect(refusal(refused)).to.include({ code: 'NOT_FOUND' });
    const before = await watermark();
    // Someone who may write, but neither started the run nor owns it, may not cancel it.
    const bystander = await connect(world.owner);
    const notAllowed = await bystander.callTool({ name: 'cancelWorkLoop', arguments: { thread } });
    expect(notAllowed.isError).to.equal(true);
    expect(refusal(notAllowed)).to.include({ code: 'FORBIDDEN' });
    expect(await watermark()).to.deep.equal(before);

    const cancelled = await client.callTool({ name: 'cancelWorkLoop', arguments: { thread, reason: 'enough' } });
    expect(cancelled.isError ?? false, JSON.stringify(cancelled)).to.equal(false);
    expect(cancelled.structuredContent).to.include({ object: 'work_loop_cancel', thread });
    const row = await world.ended(thread, 10_000);
    expect(row.outcome).to.equal('cancelled');
  });

  it('listDecisions and decideDecision answer a run\'s ask: a refusal is an isError result writing nothing, the answer resumes the run', async () => {
    world.fake.enqueue(
      script.toolCalls([{ id: 'toolu_mcp_ask', name: 'ask', input: { question: 'Ship it?', options: [{ id: 'opt_yes', label: 'Ship', description: 'Release today.' }, { id: 'opt_no', label: 'Hold', description: 'Wait a week.' }] } }]),
      script.text('Shipped.'),
    );
    const thread = await world.run({ goal: 'ask whether to ship' });
    expect((await world.ended(thread)).state).to.equal('waiting_on_you');
    const client = await connect(world.owner);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).to.include.members(['listDecisions', 'decideDecision']);
    const listed = await client.callTool({ name: 'listDecisions', arguments: { run: thread } });
    expect(listed.isError ?? false, JSON.stringify(listed)).to.equal(false);
    const pending = (listed.structuredContent as any).data;
    expect(pending.map((d: any) => d.run)).to.deep.equal([thread]);
    const before = await watermark();
    const refused = await client.callTool({ name: 'decideDecision', arguments: { id: pending[0].id, decision: 'opt_maybe' } });
    expect(refused.isError).to.equal(true);
    expect(refusal(refused)).to.include({ code: 'BAD_OPTION' });
    expect(await watermark()).to.deep.equal(before);
    const decided = await client.callTool({ name: 'decideDecision', arguments: { id: pending[0].id, decision: 'opt_yes' } });
    expect(decided.isError ?? false, JSON.stringify(decided)).to.equal(false);
    expect(decided.structuredContent).to.include({ object: 'decision_outcome', run: thread });
    let row = await world.ended(thread);
    for (let i = 0; i < 200 && row.outcome === null; i++) row = (await world.call('GET', `/v1/runs/${thread}`, world.admin)).json;
    expect(row).to.include({ state: 'done', outcome: 'completed' });
  });

  it('a tools/call asking for progress answers an event stream: progress, then the result', async () => {
    const client = await connect(reader);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'query_records', arguments: {} }, undefined, { onprogress: (event) => progress.push(event.progress) });
    expect(result.isError ?? false).to.equal(false);
    expect(progress).to.deep.equal([0, 1]);
    const stream = await raw({ ...bearer(reader), 'mcp-protocol-version': '2025-11-25' }, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'query_records', arguments: {}, _meta: { progressToken: 'p1' } } });
    expect(stream.status).to.equal(200);
    expect(stream.headers.get('content-type')).to.match(/^text\/event-stream/);
    expect(stream.text).to.include('notifications/progress');
    const plain = await raw(bearer(reader), { jsonrpc: '2.0', id: 8, method: 'tools/list' });
    expect(plain.status).to.equal(200);
    expect(plain.headers.get('content-type')).to.match(/^application\/json/);
    expect(plain.headers.get('mcp-session-id')).to.equal(null);
  });

  it('401 without a bearer names the Protected Resource Metadata, which names Loom and the scope enum', async () => {
    const before = await watermark();
    const answer = await raw({});
    expectEnvelope(answer, 401, 'AUTH_REQUIRED');
    const challenge = answer.headers.get('www-authenticate') ?? '';
    const metadataUrl = `${world.server.url}/.well-known/oauth-protected-resource/v1/mcp`;
    expect(challenge).to.match(/^Bearer /);
    expect(challenge).to.include(`resource_metadata="${metadataUrl}"`);
    const bad = await raw({ authorization: 'Bearer not-a-token' });
    expect(bad.status).to.equal(401);
    expect(bad.headers.get('www-authenticate')).to.include('resource_metadata=');
    expect(await watermark()).to.deep.equal(before);

    const metadata = await request(world.server.url, 'GET', '/.well-known/oauth-protected-resource/v1/mcp');
    expect(metadata.status).to.equal(200);
    expect(metadata.json).to.deep.include({ resource: `${world.server.url}/v1/mcp`, authorization_servers: [world.server.url], bearer_methods_supported: ['header'] });
    expect(metadata.json.scopes_supported).to.include.members(['records:read', 'records:write', 'admin']);
    const root = await request(world.server.url, 'GET', '/.well-known/oauth-protected-resource');
    expect(root.status).to.equal(200);
    expect(root.json.resource).to.equal(world.server.url);
  });

  it('refuses a foreign Origin with 403, accepts the server’s own, and refuses an unsupported protocol version with 400', async () => {
    const before = await watermark();
    const foreign = await raw({ ...bearer(reader), origin: 'http://evil.example.com' });
    expect(foreign.status).to.equal(403);
    // The Loom envelope, carrying the JSON-RPC error too for an MCP client.
    expect(foreign.json).to.include({ object: 'error', code: 'ORIGIN_NOT_ALLOWED', jsonrpc: '2.0', id: null });
    expect(foreign.json.error.code).to.equal(-32000);
    const own = await raw({ ...bearer(reader), origin: world.server.url });
    expect(own.status, own.text).to.equal(200);
    expect(own.json.result.protocolVersion).to.equal('2025-11-25');
    const version = await raw({ ...bearer(reader), 'mcp-protocol-version': '1999-01-01' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(version.status).to.equal(400);
    expect(version.json).to.include({ object: 'error', code: 'UNSUPPORTED_PROTOCOL_VERSION' });
    const accept = await request(world.server.url, 'POST', '/v1/mcp', { headers: { ...bearer(reader), accept: 'application/json' }, json: INIT });
    expect(accept.status).to.equal(406);
    expect(accept.json).to.include({ object: 'error', code: 'NOT_ACCEPTABLE' });
    expect(await watermark()).to.deep.equal(before);
  });

  it('GET and DELETE answer 405 (no server stream, no session)', async () => {
    expectEnvelope(await raw(bearer(reader), undefined, 'GET'), 405, 'METHOD_NOT_ALLOWED');
    expectEnvelope(await raw(bearer(reader), undefined, 'DELETE'), 405, 'METHOD_NOT_ALLOWED');
  });

  it('a notification answers 202 with no body; an unknown tool is a JSON-RPC error', async () => {
    const note = await raw(bearer(reader), { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).to.equal(202);
    expect(note.text).to.equal('');
    const client = await connect(reader);
    let failure: unknown = null;
    await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((error: unknown) => (failure = error));
    expect((failure as { code?: number } | null)?.code).to.equal(-32602);
  });
});

