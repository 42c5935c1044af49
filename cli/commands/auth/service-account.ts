/**
 * `loom sa list|create|revoke|rotate`: service accounts over the admin
 * routes. The plaintext api_key of `create` and `rotate` is printed once:
 * the server keeps only its hash, so this output is the only copy.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { saveServerToken, savedServer } from '../../kit/config.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print, type ClientContext } from '../../kit/context.js';
import { textTable } from '../../kit/text-table.js';

export const SA_USAGE = `loom sa list [--url …] [--token …] [--json]
loom sa create <name> [--scopes a,b] [--actors did,did] [--namespace ns] [--env prod] [--expires-at ISO]
               [--url …] [--token …] [--json]
loom sa revoke <id> [--url …] [--token …] [--json]
loom sa rotate <id> [--save] [--url …] [--token …] [--json]
  Service accounts (admin scope). create and rotate print the new api_key once; the server keeps
  only its hash. rotate revokes the account's previous tokens; --save saves the new key as the
  token for --url in the config file.`;

/** Revoking or rotating the account whose token is saved for this URL leaves that token dead; say so. */
function warnIfSaved(ctx: ClientContext, id: string, what: string): void {
  let saved;
  try {
    saved = savedServer(ctx.configPath, ctx.url);
  } catch {
    return; // only a hint: an unreadable config file must not turn a done revocation into a failure
  }
  if (saved?.service_account_id === id) process.stderr.write(`loom: note: the token saved in ${ctx.configPath} for ${ctx.url} is ${id}'s and is ${what}\n`);
}

async function list(ctx: ClientContext): Promise<void> {
  const { data } = await call(ctx, ctx.client.listServiceAccounts());
  print(ctx, data, () => {
    if (data.data.length === 0) return 'no service accounts\n';
    // state, not a yes/no: a revoked member's account is not revoked itself, but none of its tokens works.
    const rows = data.data.map((a) => [a.id, a.name, a.state.replace('_', ' '), a.namespace, String(a.live_tokens), a.scopes.join(',') || '-']);
    return textTable(['id', 'name', 'state', 'namespace', 'live tokens', 'scopes'], rows);
  });
}

async function create(ctx: ClientContext, name: string, values: { scopes?: string; actors?: string; namespace?: string; env?: string; 'expires-at'?: string }): Promise<void> {
  const scopes = parseListOption(values.scopes);
  const actors = parseListOption(values.actors);
  const { data } = await call(
    ctx,
    ctx.client.createServiceAccount({
      body: {
        name,
        ...(scopes ? { scopes } : {}),
        ...(actors ? { actors } : {}),
        ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
        ...(values.env !== undefined ? { env_tag: values.env } : {}),
        ...(values['expires-at'] !== undefined ? { expires_at: values['expires-at'] } : {}),
      },
    }),
  );
  print(ctx, data, () =>
    `created ${data.id} "${data.name}" in namespace ${data.namespace} (scopes ${data.scopes.join(',') || '-'}; may act as ${data.actors.join(',') || 'itself only'})\n` +
    `api_key (shown only now): ${data.api_key}\n`,
  );
}

async function revoke(ctx: ClientContext, id: string): Promise<void> {
  const { data } = await call(ctx, ctx.client.revokeServiceAccount({ path: { id } }));
  print(ctx, data, () => `revoked ${data.id}: its tokens are refused from now on\n`);
  warnIfSaved(ctx, data.id, 'now revoked');
}

async function rotate(ctx: ClientContext, id: string, save: boolean): Promise<void> {
  const { data } = await call(ctx, ctx.client.rotateServiceAccountKey({ path: { id } }));
  let saved = false;
  if (save) {
    try {
      await saveServerToken(ctx.configPath, ctx.url, data.api_key, data.id);
      saved = true;
    } catch (error) {
      // The previous tokens are already revoked: print the new key rather than lose it.
      throw new CliError(`${(error as Error).message}; the new api_key of ${data.id} (shown only now) is ${data.api_key}`, 1);
    }
  }
  print(ctx, saved ? { ...data, config_path: ctx.configPath } : data, () =>
    `rotated the key of ${data.id}; its previous tokens are revoked\n` +
    `api_key (shown only now): ${data.api_key}\n` +
    (saved ? `saved to ${ctx.configPath} for ${ctx.url}\n` : ''),
  );
  if (!saved) warnIfSaved(ctx, data.id, 'now revoked: use the new api_key with --token or LOOM_TOKEN (rotate with --save to save it)');
}

const arity = (sub: string, positionals: readonly string[], expected: number) => {
  if (positionals.length !== expected) throw new CliError(`loom sa ${sub} takes ${expected === 0 ? 'no arguments' : sub === 'create' ? 'a name' : 'a service account id'}\n${SA_USAGE}`);
};

export const sa = defineCommand({
  name: 'sa',
  summary: 'service accounts and their tokens',
  usage: SA_USAGE,
  json: true,
  subcommands: {
    list: subcommand({
      summary: 'the service accounts (admin)',
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        arity('list', positionals, 0);
        return list(clientContext(values));
      },
    }),
    create: subcommand({
      summary: 'a service account; prints its api_key once (admin)',
      args: ['<name>'],
      options: {
        ...CLIENT_OPTIONS,
        scopes: { type: 'string', value: 'a,b', help: 'its scopes' },
        actors: { type: 'string', value: 'did,did', help: 'the actors it may act as' },
        namespace: { type: 'string', value: 'ns', help: 'its namespace' },
        env: { type: 'string', value: 'prod', help: 'its environment' },
        'expires-at': { type: 'string', value: 'ISO', help: 'when it expires' },
      },
      run: async ({ values, positionals }) => {
        arity('create', positionals, 1);
        return create(clientContext(values), positionals[0]!, values);
      },
    }),
    revoke: subcommand({
      summary: 'revokes a service account (admin)',
      args: ['<id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        arity('revoke', positionals, 1);
        return revoke(clientContext(values), positionals[0]!);
      },
    }),
    rotate: subcommand({
      summary: "a new api_key, printed once; the account's previous tokens are revoked (admin)",
      args: ['<id>'],
      options: { ...CLIENT_OPTIONS, save: { type: 'boolean', default: false, help: 'save the new key as the token for --url' } },
      run: async ({ values, positionals }) => {
        arity('rotate', positionals, 1);
        return rotate(clientContext(values), positionals[0]!, values.save === true);
      },
    }),
  },
});
