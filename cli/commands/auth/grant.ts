/**
 * `loom grant issue|list|revoke`: delegation grants (POST /v1/grants, the
 * grant fold, DELETE /v1/grants/{grant_id}). issue delegates from the grant
 * the caller's bearer is parented to unless --parent names another; with
 * --token-for-aud it also mints the audience a bearer, printed once: the
 * server keeps only its hash.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import type { Grant } from '../../../sdk/index.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print, type ClientContext } from '../../kit/context.js';
import { integerOption, numberOption, shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const GRANT_USAGE = `loom grant issue --aud <did> --scopes a,b [--parent <grant_id>] [--max-depth N] [--max-fanout N]
                 [--budget X] [--ttl <seconds> | --expires <iso>] [--note text] [--token-for-aud]
                 [--url …] [--token …] [--json]
loom grant list [--url …] [--token …] [--json]
loom grant revoke <grant_id> [--note text] [--url …] [--token …] [--json]
  Delegation grants. issue delegates from the grant your bearer is parented to (or --parent; an
  admin without one issues a root grant), never wider than its chain. --token-for-aud also mints
  the audience a bearer, printed once. list shows the grants you issued or receive (an admin: all).
  revoke revokes the grant, every grant below it and every credential parented to them.`;


interface IssueValues {
  aud?: string;
  scopes?: string;
  parent?: string;
  'max-depth'?: string;
  'max-fanout'?: string;
  budget?: string;
  ttl?: string;
  expires?: string;
  note?: string;
  'token-for-aud'?: boolean;
}

async function issue(ctx: ClientContext, values: IssueValues): Promise<void> {
  if (!values.aud) throw new CliError(`--aud is required\n${GRANT_USAGE}`);
  const scopes = parseListOption(values.scopes);
  if (!scopes || scopes.length === 0) throw new CliError(`--scopes is required (comma-separated)\n${GRANT_USAGE}`);
  if (values.ttl !== undefined && values.expires !== undefined) throw new CliError('give --ttl or --expires, not both');
  const ttl = integerOption('ttl', values.ttl, 1);
  const caveats = {
    ...(values['max-depth'] !== undefined ? { max_depth: integerOption('max-depth', values['max-depth'])! } : {}),
    ...(values['max-fanout'] !== undefined ? { max_fanout: integerOption('max-fanout', values['max-fanout'])! } : {}),
    ...(values.budget !== undefined ? { budget: numberOption('budget', values.budget)! } : {}),
  };
  const withToken = values['token-for-aud'] === true;
  const { data } = await call(
    ctx,
    ctx.client.issueGrant({
      body: {
        aud: values.aud,
        scopes,
        ...(Object.keys(caveats).length > 0 ? { caveats } : {}),
        ...(ttl !== undefined ? { ttl_seconds: ttl } : {}),
        ...(values.expires !== undefined ? { expires_at: values.expires } : {}),
        ...(values.parent !== undefined ? { parent_grant_id: values.parent } : {}),
        ...(values.note !== undefined ? { note: values.note } : {}),
        ...(withToken ? { with_token: true } : {}),
      },
    }),
  );
  print(ctx, data, () => {
    const caveatText = Object.entries(data.caveats).map(([name, value]) => `${name} ${value}`).join(', ');
    return (
      `issued grant ${data.grant_id}\n` +
      `  ${data.iss} -> ${data.aud}\n` +
      `  scopes ${data.scopes.join(',') || '-'}; expires ${data.effective_expires_at}; ` +
      (data.chain.length > 0 ? `${data.depth} hop(s) below root, parent ${data.chain[0]}` : 'root grant') +
      (caveatText ? `; caveats ${caveatText}` : '') +
      '\n' +
      (data.token ? `token for ${data.aud} (account ${data.sa_id ?? '-'}; shown only now, the server keeps only its hash):\n${data.token}\n` : '')
    );
  });
  if (data.token && !ctx.json) process.stderr.write('loom: warning: the token above is shown only once; hand it to the audience now\n');
}

async function list(ctx: ClientContext): Promise<void> {
  const { data } = await call(ctx, ctx.client.getGlobalFold({ path: { name: 'grant' } }));
  const grants = ((data.value as { grants?: Grant[] } | null)?.grants ?? []) as Grant[];
  print(ctx, data, () => {
    if (grants.length === 0) return 'no grants\n';
    const rows = grants.map((g) => [shortId(g.grant_id), g.iss, g.aud, g.scopes.join(',') || '-', g.standing, g.effective_expires_at]);
    return textTable(['grant', 'iss', 'aud', 'scopes', 'standing', 'expires'], rows);
  });
}

async function revoke(ctx: ClientContext, grantId: string, note: string | undefined): Promise<void> {
  const { data } = await call(ctx, ctx.client.revokeGrant({ path: { grant_id: grantId }, ...(note !== undefined ? { body: { note } } : {}) }));
  print(ctx, data, () => `revoked grant ${data.grant_id}: grants_revoked ${data.grants_revoked}, credentials_revoked ${data.credentials_revoked}\n`);
}

const arity = (sub: string, positionals: readonly string[], expected: number) => {
  if (positionals.length !== expected) throw new CliError(`loom grant ${sub} takes ${expected === 0 ? 'no arguments' : 'a grant id'}\n${GRANT_USAGE}`);
};

export const grant = defineCommand({
  name: 'grant',
  summary: 'delegated grants',
  usage: GRANT_USAGE,
  json: true,
  subcommands: {
    issue: subcommand({
      summary: 'delegates from the grant your bearer is parented to (or --parent), never wider than its chain',
      options: {
        ...CLIENT_OPTIONS,
        aud: { type: 'string', value: 'did', help: 'the audience' },
        scopes: { type: 'string', value: 'a,b', help: 'the scopes delegated' },
        parent: { type: 'string', value: 'grant_id', help: 'the grant to delegate from' },
        'max-depth': { type: 'string', value: 'N', help: 'how deep it may be delegated further' },
        'max-fanout': { type: 'string', value: 'N', help: 'how many grants it may issue' },
        budget: { type: 'string', value: 'X', help: 'the budget it carries' },
        ttl: { type: 'string', value: 'seconds', help: 'its lifetime' },
        expires: { type: 'string', value: 'iso', help: 'its end (instead of --ttl)' },
        note: { type: 'string', value: 'text', help: 'kept in the record' },
        'token-for-aud': { type: 'boolean', default: false, help: 'also mint the audience a bearer, printed once' },
      },
      run: async ({ values, positionals }) => {
        arity('issue', positionals, 0);
        return issue(clientContext(values), values);
      },
    }),
    list: subcommand({
      summary: 'the grants you issued or receive (an admin: all)',
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        arity('list', positionals, 0);
        return list(clientContext(values));
      },
    }),
    revoke: subcommand({
      summary: 'revokes the grant, every grant below it and every credential parented to them',
      args: ['<grant_id>'],
      options: { ...CLIENT_OPTIONS, note: { type: 'string', value: 'text', help: 'kept in the record' } },
      run: async ({ values, positionals }) => {
        arity('revoke', positionals, 1);
        return revoke(clientContext(values), positionals[0]!, values.note);
      },
    }),
  },
});
