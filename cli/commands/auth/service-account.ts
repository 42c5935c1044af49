/**
 * `loom sa list|create|revoke|rotate`: service accounts over the admin
 * routes. The plaintext api_key of `create` and `rotate` is printed once:
 * the server keeps only its hash, so this output is the only copy.
 */
import { parseArgs } from 'node:util';
import { saveServerToken, savedServer } from '../../kit/config.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, COMMON_OPTIONS, isHelp, parseListOption, print, type ClientContext, type Command } from '../../kit/context.js';
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
    const rows = data.data.map((a) => [a.id, a.name, a.active ? 'yes' : 'revoked', a.namespace, String(a.live_tokens), a.scopes.join(',') || '-']);
    return textTable(['id', 'name', 'active', 'namespace', 'live tokens', 'scopes'], rows);
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

export const sa: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (isHelp(sub)) return void process.stdout.write(SA_USAGE + '\n');
  if (sub !== 'list' && sub !== 'create' && sub !== 'revoke' && sub !== 'rotate') throw new CliError(`usage:\n${SA_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      // Accepted by the subcommand that uses each; the others refuse them below.
      scopes: { type: 'string' },
      actors: { type: 'string' },
      namespace: { type: 'string' },
      env: { type: 'string' },
      'expires-at': { type: 'string' },
      save: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(SA_USAGE + '\n');
  const createOnly = (['scopes', 'actors', 'namespace', 'env', 'expires-at'] as const).filter((name) => values[name] !== undefined);
  if (sub !== 'create' && createOnly.length > 0) throw new CliError(`--${createOnly[0]} applies to loom sa create only`);
  if (sub !== 'rotate' && values.save) throw new CliError('--save applies to loom sa rotate only');
  const expected = sub === 'list' ? 0 : 1;
  if (positionals.length !== expected) throw new CliError(`loom sa ${sub} takes ${expected === 0 ? 'no arguments' : sub === 'create' ? 'a name' : 'a service account id'}\n${SA_USAGE}`);
  const ctx = clientContext(values);
  const argument = positionals[0]!;
  switch (sub) {
    case 'list':
      return list(ctx);
    case 'create':
      return create(ctx, argument, values);
    case 'revoke':
      return revoke(ctx, argument);
    case 'rotate':
      return rotate(ctx, argument, values.save === true);
  }
};
