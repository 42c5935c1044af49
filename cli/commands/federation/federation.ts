/**
 * `loom federation pair|list|show|approve|revoke`: federation pairs made by
 * the signed handshake (the /v1/federation/pairs routes, federation:manage).
 * `pair <url>` runs the handshake from this instance to the peer at <url>: no
 * token is copied by hand; each side mints one for the other. --json prints
 * the server's answer as is.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import type { FederationPair } from '../../../sdk/index.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const FEDERATION_USAGE = `loom federation pair <url> [--mode continuous|longpoll|polling] [--self-url <url>]
loom federation list
loom federation show|approve <pair-id>
loom federation revoke <pair-id> [--reason <text>]
  Federation pairs made by the signed handshake; federation:manage. Each takes [--url …] [--token …] [--json].
  pair: this instance asks the peer at <url> to pair (its signed manifest verified first); each side mints a
  90-day token for the other, and a sync pair pulls each way once the pair is active. The peer answers at once
  (posture open) or after its operator runs \`loom federation approve <pair-id>\` (pair-then-ask); this instance
  polls until then. --self-url: where the peer reaches this instance (default: the server's baseUrl, else --url).
  revoke: terminal; every token issued through the pair dies at once and the peer is told.`;

const MODES = ['continuous', 'longpoll', 'polling'] as const;
const orDash = (value: string | null | undefined) => value ?? '-';

function pairText(p: FederationPair & { peer_notified?: boolean | null }): string {
  const lines = [
    `pair         ${p.pair_id}`,
    `state        ${p.state}`,
    `role         ${p.role}`,
    `peer         ${p.peer_did}`,
    `url          ${p.peer_url}`,
    `mode         ${p.mode}`,
    `sync pair    ${p.state === 'active' ? p.sync_pair_id : '-'}`,
    `scopes       ${p.scopes.length > 0 ? p.scopes.join(' ') : '-'}`,
    `issued token ${p.issued_token ? `${p.issued_token.token_id_prefix}… (${p.issued_token.service_account_id}, expires ${p.issued_token.expires_at})` : '-'}`,
    `requested    ${p.requested_at}`,
    `approved     ${orDash(p.approved_at)}${p.approved_by ? ` by ${p.approved_by}` : ''}`,
    `active       ${orDash(p.active_at)}`,
    `revoked      ${p.revoked_at ? `${p.revoked_at} (${p.revoked_by}: ${orDash(p.revoked_reason)})` : '-'}`,
  ];
  if (p.peer_notified !== undefined && p.peer_notified !== null) lines.push(`peer told    ${p.peer_notified ? 'yes' : 'no (it learns when it next uses its token)'}`);
  return lines.join('\n') + '\n';
}

function onePair(name: string, positionals: readonly string[]): { id: string } {
  if (positionals.length !== 1) throw new CliError(`loom federation ${name} takes one pair id\n${FEDERATION_USAGE}`);
  return { id: positionals[0]! };
}

export const federation = defineCommand({
  name: 'federation',
  summary: 'federation pairs (the signed handshake)',
  usage: FEDERATION_USAGE,
  json: true,
  bareIsHelp: true,
  unknownSubcommand: (sub) => `unknown subcommand "loom federation ${sub}"\n${FEDERATION_USAGE}`,
  subcommands: {
    pair: subcommand({
      summary: 'pairs with the instance at <url> (the signed handshake)',
      args: ['<url>'],
      options: { ...CLIENT_OPTIONS, mode: { type: 'string', value: 'continuous|longpoll|polling', help: 'how each side pulls the other' }, 'self-url': { type: 'string', value: 'url', help: 'where the peer reaches this instance' } },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom federation pair takes the peer's URL\n${FEDERATION_USAGE}`);
        const mode = values.mode;
        if (mode !== undefined && !(MODES as readonly string[]).includes(mode)) throw new CliError(`--mode must be one of ${MODES.join(', ')} (got "${mode}")`);
        const ctx = clientContext(values);
        const body = {
          url: positionals[0]!,
          ...(values['self-url'] !== undefined ? { self_url: values['self-url'] } : {}),
          ...(mode !== undefined ? { mode: mode as (typeof MODES)[number] } : {}),
        };
        const { data } = await call(ctx, ctx.client.createFederationPair({ body }));
        print(ctx, data, () => pairText(data) + (data.state === 'establishing' ? `waiting for the peer's operator: loom federation approve ${data.pair_id} (on the peer)\n` : ''));
      },
    }),
    list: subcommand({
      summary: 'every federation pair (revoked ones kept)',
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom federation list takes no arguments\n${FEDERATION_USAGE}`);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.listFederationPairs());
        print(ctx, data, () =>
          data.data.length === 0 ? 'no federation pairs\n' : textTable(['pair', 'state', 'role', 'peer', 'url', 'mode'], data.data.map((p) => [p.pair_id, p.state, p.role, shortId(p.peer_did, 24), p.peer_url, p.mode])),
        );
      },
    }),
    show: subcommand({
      summary: 'one federation pair',
      args: ['<pair-id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.getFederationPair({ path: onePair('show', positionals) }));
        print(ctx, data, () => pairText(data));
      },
    }),
    approve: subcommand({
      summary: 'approves a pair request waiting here: tokens minted, the pair active',
      args: ['<pair-id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.approveFederationPair({ path: onePair('approve', positionals) }));
        print(ctx, data, () => pairText(data));
      },
    }),
    revoke: subcommand({
      summary: 'revokes a pair (terminal): its tokens die, the peer is told',
      args: ['<pair-id>'],
      options: { ...CLIENT_OPTIONS, reason: { type: 'string', value: 'text', help: 'why (recorded, sent to the peer)' } },
      run: async ({ values, positionals }) => {
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.revokeFederationPair({ path: onePair('revoke', positionals), body: values.reason !== undefined ? { reason: values.reason } : {} }));
        print(ctx, data, () => pairText(data));
      },
    }),
  },
});
