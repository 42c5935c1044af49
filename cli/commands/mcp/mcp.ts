/**
 * `loom mcp config <client>`: the configuration snippet that points an MCP
 * client (Claude Desktop, Claude Code, Cursor, VS Code) at this server's
 * POST /v1/mcp with a bearer. The bearer is the one this CLI would send
 * (--token, LOOM_TOKEN, the saved one), or, with --create-account <name>, the
 * api_key of a new service account created here through the SDK, scoped
 * narrowly (--scopes, default records:read,records:write,threads:write: read
 * and write records, open threads, start loops; no admin, no config, no
 * federation). The snippet holds a secret: it is printed, never written.
 */
import { CliError } from '../../../command/cli-error.js';
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { call, chooseToken, clientContext, CLIENT_OPTIONS, parseListOption, print } from '../../kit/context.js';

export const MCP_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
type McpClient = (typeof MCP_CLIENTS)[number];

/** The default scopes of an account created for an MCP client: what Loom's tools need, nothing administrative. */
export const MCP_ACCOUNT_SCOPES = ['records:read', 'records:write', 'threads:write'];

export const MCP_USAGE = `loom mcp config <claude-desktop|claude-code|cursor|vscode> [--create-account <name>] [--scopes a,b]
                [--url …] [--token …] [--json]
  Prints the configuration snippet for an MCP client: the server's /v1/mcp URL and a bearer. The bearer
  is the one this CLI uses (--token, LOOM_TOKEN, the saved one); --create-account creates a service account
  for the client (admin token needed) with --scopes (default ${MCP_ACCOUNT_SCOPES.join(',')}) and uses its key.
  The snippet holds a secret: keep it out of shared files.`;

interface Snippet {
  /** Where the snippet goes. */
  readonly where: string;
  /** The configuration as JSON (the file's content, or the part to merge into it). */
  readonly config: Record<string, unknown>;
  /** A command that installs it, when the client has one. */
  readonly command: string | null;
}

export function mcpSnippet(client: McpClient, endpoint: string, token: string): Snippet {
  const authorization = `Bearer ${token}`;
  switch (client) {
    case 'claude-desktop':
      // Claude Desktop's config file starts local (stdio) servers; mcp-remote bridges one to a Streamable HTTP URL.
      return {
        where: 'claude_desktop_config.json (Settings → Developer → Edit Config); merge under mcpServers',
        config: { mcpServers: { loom: { command: 'npx', args: ['-y', 'mcp-remote', endpoint, '--header', 'Authorization:${LOOM_AUTHORIZATION}'], env: { LOOM_AUTHORIZATION: authorization } } } },
        command: null,
      };
    case 'claude-code':
      return {
        where: '.mcp.json at the project root (or run the command)',
        config: { mcpServers: { loom: { type: 'http', url: endpoint, headers: { Authorization: authorization } } } },
        command: `claude mcp add --transport http loom ${endpoint} --header "Authorization: ${authorization}"`,
      };
    case 'cursor':
      return { where: '~/.cursor/mcp.json (or .cursor/mcp.json in the project); merge under mcpServers', config: { mcpServers: { loom: { url: endpoint, headers: { Authorization: authorization } } } }, command: null };
    case 'vscode':
      return { where: '.vscode/mcp.json in the workspace; merge under servers', config: { servers: { loom: { type: 'http', url: endpoint, headers: { Authorization: authorization } } } }, command: null };
  }
}

async function config(values: { url?: string; token?: string; json?: boolean; 'create-account'?: string; scopes?: string }, client: string): Promise<void> {
  if (!(MCP_CLIENTS as readonly string[]).includes(client)) throw new CliError(`unknown MCP client ${JSON.stringify(client)} (clients: ${MCP_CLIENTS.join(', ')})\n${MCP_USAGE}`, 2);
  const ctx = clientContext(values);
  const endpoint = `${ctx.url}/v1/mcp`;
  let token: string;
  let account: { id: string; name: string; scopes: string[] } | null = null;
  if (values['create-account'] !== undefined) {
    const scopes = parseListOption(values.scopes) ?? MCP_ACCOUNT_SCOPES;
    const { data } = await call(ctx, ctx.client.createServiceAccount({ body: { name: values['create-account'], scopes } }));
    if (!data.api_key) throw new CliError(`the server created ${data.id} without an api_key; mint one with loom sa rotate ${data.id}`, 1);
    token = data.api_key;
    account = { id: data.id, name: data.name, scopes: data.scopes };
  } else {
    if (values.scopes !== undefined) throw new CliError('--scopes applies only with --create-account', 2);
    const chosen = chooseToken(ctx.url, values.token, ctx.configPath);
    if (!chosen) throw new CliError(`no bearer to put in the snippet: pass --token, set LOOM_TOKEN, or create an account for the client with --create-account <name>`, 2);
    token = chosen.token;
  }
  const snippet = mcpSnippet(client as McpClient, endpoint, token);
  print(ctx, { object: 'mcp_client_config', client, url: endpoint, service_account: account, where: snippet.where, config: snippet.config, command: snippet.command }, () =>
    (account ? `created service account ${account.id} "${account.name}" (scopes ${account.scopes.join(',')}); its key is in the snippet below, shown only now\n` : '') +
    `# ${client}: ${snippet.where}\n` +
    JSON.stringify(snippet.config, null, 2) +
    '\n' +
    (snippet.command ? `# or run:\n${snippet.command}\n` : ''),
  );
}

export const mcp = defineCommand({
  name: 'mcp',
  summary: 'connect AI clients to this server over MCP',
  usage: MCP_USAGE,
  json: true,
  subcommands: {
    config: subcommand({
      summary: 'the configuration snippet for an MCP client',
      args: ['<client>'],
      options: {
        ...CLIENT_OPTIONS,
        'create-account': { type: 'string', value: 'name', help: 'create a service account for the client and use its key' },
        scopes: { type: 'string', value: 'a,b', help: `the new account's scopes (default ${MCP_ACCOUNT_SCOPES.join(',')})` },
      },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom mcp config takes one client (${MCP_CLIENTS.join(', ')})\n${MCP_USAGE}`, 2);
        return config(values, positionals[0]!);
      },
    }),
  },
});
