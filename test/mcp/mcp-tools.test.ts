/**
 * The MCP tool handlers without HTTP (the SDK's in-memory transport), and
 * the drift test: every published tool's schemas are the ones Loom already
 * declares, the registry descriptor's for a registry tool, the route
 * declaration's (params + query + body in, 2xx response out) for an
 * operation tool. A schema edited on one side only fails here.
 */
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LOCAL, type Caller } from '../../core/access/caller.js';
import { resolve } from '../../core/di/token.js';
import { RouteCatalogToken } from '../../core/plugin/route-catalog.js';
import { ToolRegistryToken } from '../../plugins/members/index.js';
import { McpToolCatalogToken, mcpServer, OPERATION_TOOLS } from '../../plugins/mcp/index.js';
import { startServer, type StartedServer } from '../helpers/http-server.js';

/** A JSON copy without `$id` (written here, not imported, so the plugin's own conversion is under test too). */
function plain(schema: unknown): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).filter(([key]) => key !== '$id').map(([key, inner]) => [key, strip(inner)]));
  };
  return schema === undefined ? undefined : strip(JSON.parse(JSON.stringify(schema)));
}

/** A refused tool call: the Loom envelope, carried as the result's text (never as structuredContent). */
function refusal(answer: unknown): Record<string, unknown> {
  const result = answer as { content?: unknown; structuredContent?: unknown; isError?: boolean };
  expect(result.isError, JSON.stringify(result)).to.equal(true);
  expect(result.structuredContent, 'no structuredContent on a refusal').to.equal(undefined);
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

describe('MCP tools (in-memory transport) and schema drift', function () {
  this.timeout(30_000);
  let server: StartedServer;

  before(async () => {
    server = await startServer();
  });
  after(async () => server?.stop());

  async function connectAs(caller: Caller): Promise<Client> {
    const catalog = resolve(server.loom.container, McpToolCatalogToken);
    const mcp = mcpServer(catalog, { caller, credentialHeaders: {} }, 'test');
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcp.connect(serverSide);
    const client = new Client({ name: 'in-memory', version: '1' });
    await client.connect(clientSide);
    return client;
  }

  it('registry tools: input and output schemas are the descriptor’s, and tools that need a run are not published', async () => {
    const registry = resolve(server.loom.container, ToolRegistryToken);
    const client = await connectAs(LOCAL);
    const { tools } = await client.listTools();
    const published = new Map(tools.map((tool) => [tool.name, tool]));
    for (const descriptor of registry.list()) {
      const tool = published.get(descriptor.name);
      if (descriptor.needsRun) {
        expect(tool, descriptor.name).to.equal(undefined);
        continue;
      }
      expect(tool, descriptor.name).to.not.equal(undefined);
      expect(tool!.inputSchema, descriptor.name).to.deep.equal(plain(descriptor.inputSchema));
      expect(tool!.outputSchema ?? null, descriptor.name).to.deep.equal(descriptor.outputSchema ? plain(descriptor.outputSchema) : null);
      expect(tool!.annotations!.readOnlyHint).to.equal(descriptor.readOnly);
    }
    await client.close();
  });

  it('operation tools: input = the operation’s params, query and body; output = its 2xx response schema', async () => {
    const routes = new Map(resolve(server.loom.container, RouteCatalogToken).all().map(({ route }) => [route.operationId, route]));
    const client = await connectAs(LOCAL);
    const { tools } = await client.listTools();
    const published = new Map(tools.map((tool) => [tool.name, tool]));
    let checked = 0;
    for (const { operationId } of OPERATION_TOOLS) {
      const route = routes.get(operationId);
      const tool = published.get(operationId);
      // An operation the route table lacks (a plugin not loaded or not built yet) is skipped, not invented.
      if (!route) {
        expect(tool, operationId).to.equal(undefined);
        continue;
      }
      expect(tool, operationId).to.not.equal(undefined);
      const expected: Record<string, unknown> = {};
      const required: string[] = [];
      for (const part of ['params', 'query', 'body'] as const) {
        const schema = plain(route.request?.[part]) as { properties?: Record<string, unknown>; required?: string[] } | undefined;
        Object.assign(expected, schema?.properties ?? {});
        required.push(...(schema?.required ?? []));
      }
      expect(tool!.inputSchema.properties, operationId).to.deep.equal(expected);
      expect([...(tool!.inputSchema.required ?? [])].sort(), operationId).to.deep.equal(required.sort());
      const success = [...new Set(Object.entries(route.responses).filter(([status, spec]) => Number(status) < 300 && spec.schema).map(([, spec]) => JSON.stringify(plain(spec.schema))))].map((text) => JSON.parse(text));
      expect(tool!.outputSchema, operationId).to.deep.equal(success.length === 1 ? success[0] : { type: 'object', anyOf: success });
      expect(tool!.annotations!.readOnlyHint, operationId).to.equal(route.method === 'GET');
      checked++;
    }
    expect(checked).to.be.at.least(4);
    await client.close();
  });

  it('tool handlers answer structuredContent and a text mirror; a scope the caller lacks is an isError result', async () => {
    const client = await connectAs(LOCAL);
    const opened = await client.callTool({ name: 'createThread', arguments: { goal: 'in memory' } });
    expect(opened.isError ?? false, JSON.stringify(opened)).to.equal(false);
    const thread = (opened.structuredContent as { thread: string }).thread;
    const folded = await client.callTool({ name: 'fold_thread', arguments: { thread } });
    expect(folded.isError ?? false, JSON.stringify(folded)).to.equal(false);
    expect(JSON.parse((folded.content as { text: string }[])[0]!.text)).to.deep.equal(folded.structuredContent);
    const invalid = await client.callTool({ name: 'read_thread', arguments: { thread: 42 } });
    expect(invalid.isError).to.equal(true);
    expect(refusal(invalid)).to.include({ code: 'INVALID_SHAPE' });
    await client.close();

    const readOnly: Caller = { ...LOCAL, scopes: ['records:read'] };
    const narrow = await connectAs(readOnly);
    const before = await server.loom.engine.store.watermark();
    const refused = await narrow.callTool({ name: 'write_record', arguments: { thread, act: 'KNOW', body: { text: 'no' } } });
    expect(refused.isError).to.equal(true);
    expect(refusal(refused)).to.include({ code: 'SCOPE_FORBIDDEN', scope: 'records:write' });
    expect(await server.loom.engine.store.watermark()).to.deep.equal(before);
    await narrow.close();
  });
});
