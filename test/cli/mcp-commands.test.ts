/**
 * `loom mcp config <client>` against a real server (auth required): the
 * snippet names the server's /v1/mcp and the CLI's own bearer; with
 * --create-account it creates a narrowly scoped service account whose key,
 * taken from the snippet, lists the MCP tools and is refused a scope it was
 * not given. Unknown clients and a missing bearer are usage errors.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearer, bootstrapAdmin, type Credential } from '../helpers/auth.js';
import { cliExpectations, runLoom, type CliRun } from '../helpers/cli-run.js';
import { request, startServer, type StartedServer } from '../helpers/http-server.js';

describe('loom mcp config', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let admin: Credential;
  let root: string;
  const loom = (args: string[], token?: string): Promise<CliRun> => runLoom(args, { url: server.url, config: join(root, 'config.json'), ...(token === undefined ? {} : { token }) });
  const { json, human, refused } = cliExpectations((args: string[], token?: string) => loom(args, token));

  before(async () => {
    server = await startServer({ auth: { required: true } });
    admin = await bootstrapAdmin(server.url);
    root = await mkdtemp(join(tmpdir(), 'loom-cli-mcp-'));
  });
  after(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('prints each client’s snippet with the URL and the CLI’s bearer', async () => {
    const endpoint = `${server.url}/v1/mcp`;
    const code = await json(['mcp', 'config', 'claude-code'], admin.token);
    expect(code).to.include({ object: 'mcp_client_config', client: 'claude-code', url: endpoint, service_account: null });
    expect(code.config.mcpServers.loom).to.deep.equal({ type: 'http', url: endpoint, headers: { Authorization: `Bearer ${admin.token}` } });
    expect(code.command).to.equal(`claude mcp add --transport http loom ${endpoint} --header "Authorization: Bearer ${admin.token}"`);
    expect((await json(['mcp', 'config', 'cursor'], admin.token)).config.mcpServers.loom.url).to.equal(endpoint);
    expect((await json(['mcp', 'config', 'vscode'], admin.token)).config.servers.loom).to.include({ type: 'http', url: endpoint });
    const desktop = await json(['mcp', 'config', 'claude-desktop'], admin.token);
    expect(desktop.config.mcpServers.loom.args).to.include(endpoint);
    expect(desktop.config.mcpServers.loom.env.LOOM_AUTHORIZATION).to.equal(`Bearer ${admin.token}`);
    const text = await human(['mcp', 'config', 'claude-code'], admin.token);
    expect(text).to.include('"mcpServers"').and.include('claude mcp add --transport http loom');
  });

  it('--create-account creates a narrowly scoped service account whose key works over MCP', async () => {
    const created = await json(['mcp', 'config', 'vscode', '--create-account', 'vscode-assistant'], admin.token);
    expect(created.service_account).to.include({ name: 'vscode-assistant' });
    expect(created.service_account.scopes).to.deep.equal(['records:read', 'records:write', 'threads:write']);
    const authorization: string = created.config.servers.loom.headers.Authorization;
    expect(authorization).to.not.include(admin.token);
    const mcp = (body: unknown) => request(server.url, 'POST', '/v1/mcp', { headers: { authorization, accept: 'application/json, text/event-stream' }, json: body });
    const listed = await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(listed.status, listed.text).to.equal(200);
    expect(listed.json.result.tools.map((tool: { name: string }) => tool.name)).to.include('read_thread');
    // Not an admin: the admin routes refuse its key.
    const adminRoute = await request(server.url, 'GET', '/v1/service-accounts', { headers: { authorization } });
    expect(adminRoute.status).to.equal(403);
    const narrower = await json(['mcp', 'config', 'cursor', '--create-account', 'cursor-reader', '--scopes', 'records:read'], admin.token);
    expect(narrower.service_account.scopes).to.deep.equal(['records:read']);
    const accounts = await request(server.url, 'GET', '/v1/service-accounts', { headers: bearer(admin) });
    expect(accounts.json.data.map((account: { name: string }) => account.name)).to.include.members(['vscode-assistant', 'cursor-reader']);
  });

  it('refuses an unknown client, a missing bearer and --scopes without --create-account', async () => {
    await refused(['mcp', 'config', 'emacs'], 2, admin.token);
    await refused(['mcp', 'config', 'cursor'], 2);
    await refused(['mcp', 'config', 'cursor', '--scopes', 'admin'], 2, admin.token);
  });
});
