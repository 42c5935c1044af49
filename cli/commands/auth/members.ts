/**
 * `loom members list|adopt|revoke`: memberships (GET /v1/members,
 * POST /v1/members/adopt, DELETE /v1/members/{label}). Revoking a member
 * cascades to every grant delegated below its membership and every bearer
 * parented to them. adopt --did mints that actor a bearer, printed once.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { savedServer } from '../../kit/config.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print, type ClientContext } from '../../kit/context.js';
import { integerOption, presetOption } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const MEMBERS_USAGE = `loom members list [--url …] [--token …] [--json]
loom members adopt <label> (--sa <sa_id> | --did <did>) [--preset reader|contributor|admin | --scopes a,b]
                   [--grant-ttl seconds] [--note text] [--url …] [--token …] [--json]
loom members revoke <label> [--note text] [--url …] [--token …] [--json]
  Members (list: an admin sees all, anyone else its own row; adopt: admin scope). adopt makes an
  existing service account's holder (--sa; its live tokens keep working) or an actor (--did; a token
  is minted and printed once) the member <label>. revoke (an admin, or the member itself) revokes the
  membership and, from the next request on, every grant and token below it.`;


async function list(ctx: ClientContext): Promise<void> {
  const { data } = await call(ctx, ctx.client.listMembers());
  print(ctx, data, () => {
    if (data.data.length === 0) return 'no members\n';
    const rows = data.data.map((m) => [m.label, m.did, m.state, m.via, m.sa_id ?? '-', m.scopes.join(',') || '-', m.expires_at]);
    return textTable(['label', 'did', 'state', 'via', 'account', 'scopes', 'expires'], rows);
  });
}

async function adopt(ctx: ClientContext, label: string, values: { sa?: string; did?: string; preset?: string; scopes?: string; 'grant-ttl'?: string; note?: string }): Promise<void> {
  if ((values.sa === undefined) === (values.did === undefined)) throw new CliError(`loom members adopt takes exactly one of --sa or --did\n${MEMBERS_USAGE}`);
  if (values.preset !== undefined && values.scopes !== undefined) throw new CliError('give --preset or --scopes, not both');
  const preset = presetOption(values.preset);
  const scopes = parseListOption(values.scopes);
  const grantTtl = integerOption('grant-ttl', values['grant-ttl'], 1);
  const { data } = await call(
    ctx,
    ctx.client.adoptMember({
      body: {
        label,
        ...(values.sa !== undefined ? { sa_id: values.sa } : {}),
        ...(values.did !== undefined ? { did: values.did } : {}),
        ...(preset !== undefined ? { preset } : {}),
        ...(scopes !== undefined ? { scopes } : {}),
        ...(grantTtl !== undefined ? { grant_ttl_seconds: grantTtl } : {}),
        ...(values.note !== undefined ? { note: values.note } : {}),
      },
    }),
  );
  print(ctx, data, () =>
    `adopted ${data.principal} as member ${data.label} (account ${data.sa_id ?? '-'}), scopes ${data.scopes.join(',') || '-'}, membership until ${data.grant_expires_at}\n` +
    (data.token ? `token for ${data.principal} (shown only now, the server keeps only its hash): ${data.token}\n` : `its live tokens keep working, now under grant ${data.grant_id}\n`),
  );
  if (data.token && !ctx.json) process.stderr.write('loom: warning: the token above is shown only once; hand it to the member now\n');
}

async function revoke(ctx: ClientContext, label: string, note: string | undefined): Promise<void> {
  const { data } = await call(ctx, ctx.client.revokeMember({ path: { label }, ...(note !== undefined ? { body: { note } } : {}) }));
  print(ctx, data, () => `revoked member ${data.label} (${data.did}): grants_revoked ${data.grants_revoked}, credentials_revoked ${data.credentials_revoked}\n`);
  let saved;
  try {
    saved = savedServer(ctx.configPath, ctx.url);
  } catch {
    return; // only a hint: an unreadable config file must not turn a done revocation into a failure
  }
  if (data.sa_id !== null && saved?.service_account_id === data.sa_id) process.stderr.write(`loom: note: the token saved in ${ctx.configPath} for ${ctx.url} is ${data.label}'s and is now revoked\n`);
}

const arity = (sub: string, positionals: readonly string[], expected: number) => {
  if (positionals.length !== expected) throw new CliError(`loom members ${sub} takes ${expected === 0 ? 'no arguments' : 'a member label'}\n${MEMBERS_USAGE}`);
};

export const members = defineCommand({
  name: 'members',
  summary: "a namespace's members",
  usage: MEMBERS_USAGE,
  json: true,
  subcommands: {
    list: subcommand({
      summary: 'the members (an admin sees all, anyone else its own row)',
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        arity('list', positionals, 0);
        return list(clientContext(values));
      },
    }),
    adopt: subcommand({
      summary: "makes a service account's holder (--sa) or an actor (--did) the member <label> (admin)",
      args: ['<label>'],
      options: {
        ...CLIENT_OPTIONS,
        sa: { type: 'string', value: 'sa_id', help: 'an existing service account (its live tokens keep working)' },
        did: { type: 'string', value: 'did', help: 'an actor: a token is minted and printed once' },
        preset: { type: 'string', value: 'reader|contributor|admin', help: "the membership's scope preset" },
        scopes: { type: 'string', value: 'a,b', help: "the membership's scopes (instead of --preset)" },
        'grant-ttl': { type: 'string', value: 'seconds', help: "the membership's lifetime" },
        note: { type: 'string', value: 'text', help: 'kept in the record' },
      },
      run: async ({ values, positionals }) => {
        arity('adopt', positionals, 1);
        return adopt(clientContext(values), positionals[0]!, values);
      },
    }),
    revoke: subcommand({
      summary: 'revokes the membership and every grant and token below it (an admin, or the member itself)',
      args: ['<label>'],
      options: { ...CLIENT_OPTIONS, note: { type: 'string', value: 'text', help: 'kept in the record' } },
      run: async ({ values, positionals }) => {
        arity('revoke', positionals, 1);
        return revoke(clientContext(values), positionals[0]!, values.note);
      },
    }),
  },
});
