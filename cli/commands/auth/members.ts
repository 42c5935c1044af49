/**
 * `loom members list|adopt|revoke`: memberships (GET /v1/members,
 * POST /v1/members/adopt, DELETE /v1/members/{label}). Revoking a member
 * cascades to every grant delegated below its membership and every bearer
 * parented to them. adopt --did mints that actor a bearer, printed once.
 */
import { parseArgs } from 'node:util';
import { savedServer } from '../../kit/config.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, COMMON_OPTIONS, isHelp, parseListOption, print, type ClientContext, type Command } from '../../kit/context.js';
import { integerOption, presetOption, refuseForeignOptions } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const MEMBERS_USAGE = `loom members list [--url …] [--token …] [--json]
loom members adopt <label> (--sa <sa_id> | --did <did>) [--preset reader|contributor|admin | --scopes a,b]
                   [--grant-ttl seconds] [--note text] [--url …] [--token …] [--json]
loom members revoke <label> [--note text] [--url …] [--token …] [--json]
  Members (list: an admin sees all, anyone else its own row; adopt: admin scope). adopt makes an
  existing service account's holder (--sa; its live tokens keep working) or an actor (--did; a token
  is minted and printed once) the member <label>. revoke (an admin, or the member itself) revokes the
  membership and, from the next request on, every grant and token below it.`;

const OWNERS = {
  sa: ['adopt'],
  did: ['adopt'],
  preset: ['adopt'],
  scopes: ['adopt'],
  'grant-ttl': ['adopt'],
  note: ['adopt', 'revoke'],
} as const;

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

export const members: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (isHelp(sub)) return void process.stdout.write(MEMBERS_USAGE + '\n');
  if (sub !== 'list' && sub !== 'adopt' && sub !== 'revoke') throw new CliError(`usage:\n${MEMBERS_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      sa: { type: 'string' },
      did: { type: 'string' },
      preset: { type: 'string' },
      scopes: { type: 'string' },
      'grant-ttl': { type: 'string' },
      note: { type: 'string' },
    },
  });
  if (values.help) return void process.stdout.write(MEMBERS_USAGE + '\n');
  refuseForeignOptions('members', sub, values, OWNERS);
  const expected = sub === 'list' ? 0 : 1;
  if (positionals.length !== expected) throw new CliError(`loom members ${sub} takes ${expected === 0 ? 'no arguments' : 'a member label'}\n${MEMBERS_USAGE}`);
  const ctx = clientContext(values);
  switch (sub) {
    case 'list':
      return list(ctx);
    case 'adopt':
      return adopt(ctx, positionals[0]!, values);
    case 'revoke':
      return revoke(ctx, positionals[0]!, values.note);
  }
};
