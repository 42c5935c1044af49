/**
 * `loom invite create|list|revoke|redeem`: membership invites. create
 * (admin) prints the invite_token once: the server keeps only its hash.
 * redeem needs no bearer (the invite token is the credential) and answers the
 * new member's bearer once; --save keeps it in the config file for --url,
 * unless a live token of another account is saved there (as loom bootstrap).
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import type { Invite } from '../../../sdk/index.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print, type ClientContext } from '../../kit/context.js';
import { anonymousContext, saveIssuedToken, savedBefore, savedLine } from '../../kit/issued-token.js';
import { integerOption, presetOption } from '../../kit/options.js';
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

const arity = (sub: string, positionals: readonly string[], expected: number) => {
  if (positionals.length !== expected) throw new CliError(`loom invite ${sub} takes ${expected === 0 ? 'no arguments' : sub === 'revoke' ? 'an invite id' : 'an invite token'}\n${INVITE_USAGE}`);
};

const LABEL = { label: { type: 'string', value: 'L', help: "the member's label" } } as const;

export const invite = defineCommand({
  name: 'invite',
  summary: 'invites to a namespace',
  usage: INVITE_USAGE,
  json: true,
  subcommands: {
    create: subcommand({
      summary: 'an invite; prints its invite_token once (admin)',
      options: {
        ...CLIENT_OPTIONS,
        preset: { type: 'string', value: 'reader|contributor|admin', help: "the membership's scope preset" },
        scopes: { type: 'string', value: 'a,b', help: "the membership's scopes (instead of --preset)" },
        ...LABEL,
        ttl: { type: 'string', value: 'seconds', help: "the invite's lifetime (default 24 h)" },
        'grant-ttl': { type: 'string', value: 'seconds', help: "the membership's lifetime" },
        'max-uses': { type: 'string', value: 'N', help: 'how many redemptions (default 1)' },
        note: { type: 'string', value: 'text', help: 'kept in the record' },
      },
      run: async ({ values, positionals }) => {
        arity('create', positionals, 0);
        return create(clientContext(values), values);
      },
    }),
    list: subcommand({
      summary: 'the invites (admin)',
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        arity('list', positionals, 0);
        return list(clientContext(values));
      },
    }),
    revoke: subcommand({
      summary: 'an invite can no longer be redeemed (admin)',
      args: ['<invite_id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        arity('revoke', positionals, 1);
        return revoke(clientContext(values), positionals[0]!);
      },
    }),
    redeem: subcommand({
      // redeem sends no bearer: the invite token is the credential.
      summary: 'makes you the member --label and prints your new token once (no token needed)',
      args: ['<invite_token>'],
      options: { url: CLIENT_OPTIONS.url, ...LABEL, save: { type: 'boolean', default: false, help: 'save the token for --url in the config file' } },
      run: async ({ values, positionals }) => {
        arity('redeem', positionals, 1);
        return redeem(anonymousContext(values), positionals[0]!, values.label, values.save === true);
      },
    }),
  },
});
