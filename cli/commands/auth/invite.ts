/**
 * `loom invite create|list|revoke|redeem`: membership invites. create
 * (admin) prints the invite_token once: the server keeps only its hash.
 * redeem needs no bearer (the invite token is the credential) and answers the
 * new member's bearer once; --save keeps it in the config file for --url,
 * unless a live token of another account is saved there (as loom bootstrap).
 */
import { parseArgs } from 'node:util';
import type { Invite } from '../../../sdk/index.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, COMMON_OPTIONS, isHelp, parseListOption, print, type ClientContext, type Command } from '../../kit/context.js';
import { anonymousContext, saveIssuedToken, savedBefore, savedLine } from '../../kit/issued-token.js';
import { integerOption, presetOption, refuseForeignOptions } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const INVITE_USAGE = `loom invite create [--preset reader|contributor|admin | --scopes a,b] [--label L] [--ttl seconds]
                   [--grant-ttl seconds] [--max-uses N] [--note text] [--url …] [--token …] [--json]
loom invite list [--url …] [--token …] [--json]
loom invite revoke <invite_id> [--url …] [--token …] [--json]
loom invite redeem <invite_token> [--label L] [--save] [--url …] [--json]
  Membership invites (create, list, revoke: admin scope). create prints the invite_token once
  (the invite lives --ttl, default 24 h, for --max-uses redemptions, default 1; --label pins the
  member's label; --grant-ttl is the membership's lifetime). redeem needs no token: it makes you
  the member --label and prints your new token once; --save saves it for --url in the config file.
  Then bind a recovery code with "loom self bind-code".`;

const OWNERS = {
  preset: ['create'],
  scopes: ['create'],
  label: ['create', 'redeem'],
  ttl: ['create'],
  'grant-ttl': ['create'],
  'max-uses': ['create'],
  note: ['create'],
  save: ['redeem'],
  // redeem sends no bearer: the invite token is the credential.
  token: ['create', 'list', 'revoke'],
} as const;

function membershipText(invite: Invite): string {
  const m = invite.membership;
  return `${m.preset ?? 'scopes'} (${m.scopes.join(',') || '-'})${m.label ? `, label ${m.label}` : ''}`;
}

async function create(ctx: ClientContext, values: { preset?: string; scopes?: string; label?: string; ttl?: string; 'grant-ttl'?: string; 'max-uses'?: string; note?: string }): Promise<void> {
  if (values.preset !== undefined && values.scopes !== undefined) throw new CliError('give --preset or --scopes, not both');
  const preset = presetOption(values.preset);
  const scopes = parseListOption(values.scopes);
  const ttl = integerOption('ttl', values.ttl, 1);
  const grantTtl = integerOption('grant-ttl', values['grant-ttl'], 1);
  const maxUses = integerOption('max-uses', values['max-uses'], 1);
  const { data } = await call(
    ctx,
    ctx.client.createInvite({
      body: {
        membership: {
          ...(preset !== undefined ? { preset } : {}),
          ...(scopes !== undefined ? { scopes } : {}),
          ...(values.label !== undefined ? { label: values.label } : {}),
          ...(grantTtl !== undefined ? { grant_ttl_seconds: grantTtl } : {}),
        },
        ...(ttl !== undefined ? { ttl_seconds: ttl } : {}),
        ...(maxUses !== undefined ? { max_uses: maxUses } : {}),
        ...(values.note !== undefined ? { note: values.note } : {}),
      },
    }),
  );
  print(ctx, data, () =>
    `created invite ${data.invite_id}: ${membershipText(data)}; ${data.max_uses} use(s) until ${data.expires_at}\n` +
    `invite_token (shown only now): ${data.invite_token}\n` +
    `redeem with: loom invite redeem '${data.invite_token}'${data.membership.label ? '' : ' --label <name>'} --save --url ${ctx.url}\n`,
  );
}

async function list(ctx: ClientContext): Promise<void> {
  const { data } = await call(ctx, ctx.client.listInvites());
  print(ctx, data, () => {
    if (data.data.length === 0) return 'no invites\n';
    const rows = data.data.map((i) => [i.invite_id, i.state, `${i.uses}/${i.max_uses}`, i.membership.preset ?? '-', i.membership.scopes.join(',') || '-', i.membership.label ?? '-', i.expires_at]);
    return textTable(['invite', 'state', 'uses', 'preset', 'scopes', 'label', 'expires'], rows);
  });
}

async function revoke(ctx: ClientContext, inviteId: string): Promise<void> {
  const { data } = await call(ctx, ctx.client.revokeInvite({ path: { invite_id: inviteId } }));
  print(ctx, data, () => `revoked invite ${data.invite_id}: it can no longer be redeemed (${data.uses} redemption(s) made stay members; revoke those with loom members revoke)\n`);
}

async function redeem(ctx: ClientContext, inviteToken: string, label: string | undefined, save: boolean): Promise<void> {
  // Read before the request, so a malformed config file fails here, not after the invite is spent.
  const previous = save ? savedBefore(ctx) : undefined;
  const { data } = await call(ctx, ctx.client.redeemInvite({ body: { invite: inviteToken, ...(label !== undefined ? { label } : {}) } }));
  const token = data.token;
  if (!token) throw new CliError(`the server answered no token for member ${data.label}`, 1);
  const outcome = save ? await saveIssuedToken(ctx, previous, token, data.sa_id, `the token of member ${data.label}`) : undefined;
  print(ctx, outcome ? { ...data, config_path: ctx.configPath, saved: outcome.saved } : data, () =>
    `${data.renewed ? 'renewed' : 'joined as'} member ${data.label} (${data.principal}), scopes ${data.scopes.join(',') || '-'}, membership until ${data.grant_expires_at}\n` +
    (outcome ? savedLine(ctx, outcome, token) : `token (shown only now; expires ${data.expires_at ?? 'never'}): ${token}\n`) +
    `next: bind a recovery code so you can get a new token if you lose this one: loom self bind-code --url ${ctx.url}${outcome?.saved ? '' : ' --token …'}\n`,
  );
}

export const invite: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (isHelp(sub)) return void process.stdout.write(INVITE_USAGE + '\n');
  if (sub !== 'create' && sub !== 'list' && sub !== 'revoke' && sub !== 'redeem') throw new CliError(`usage:\n${INVITE_USAGE}`);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      ...COMMON_OPTIONS,
      preset: { type: 'string' },
      scopes: { type: 'string' },
      label: { type: 'string' },
      ttl: { type: 'string' },
      'grant-ttl': { type: 'string' },
      'max-uses': { type: 'string' },
      note: { type: 'string' },
      save: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(INVITE_USAGE + '\n');
  refuseForeignOptions('invite', sub, values, OWNERS);
  const expected = sub === 'revoke' || sub === 'redeem' ? 1 : 0;
  if (positionals.length !== expected) throw new CliError(`loom invite ${sub} takes ${expected === 0 ? 'no arguments' : sub === 'revoke' ? 'an invite id' : 'an invite token'}\n${INVITE_USAGE}`);
  const ctx = sub === 'redeem' ? anonymousContext(values) : clientContext(values);
  switch (sub) {
    case 'create':
      return create(ctx, values);
    case 'list':
      return list(ctx);
    case 'revoke':
      return revoke(ctx, positionals[0]!);
    case 'redeem':
      return redeem(ctx, positionals[0]!, values.label, values.save === true);
  }
};
