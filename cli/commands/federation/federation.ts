/**
 * `loom federation pair|list|show|approve|revoke|pause|resume|refresh|set-mode|
 * set-poll-interval|notify-revoke|keys|rotate-key`: federation pairs made by the signed
 * handshake (the /v1/federation/pairs routes, federation:manage), and the
 * instance's signing key (/v1/federation/keys).
 * `pair <url>` runs the handshake from this instance to the peer at <url>: no
 * token is copied by hand; each side mints one for the other. --json prints
 * the server's answer as is.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import type { FederationKeys, FederationPair } from '../../../sdk/index.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
// ---- relay mailbox (issue 35) ----
import { relaySubcommand } from './relay.js';
// ---- end relay mailbox ----

export const FEDERATION_USAGE = `loom federation pair <url> [--mode polling|continuous|on-demand|longpoll] [--poll-interval <duration>] [--self-url <url>]
loom federation list
loom federation show|approve|pause|resume|refresh|notify-revoke <pair-id>
loom federation set-mode <pair-id> polling|continuous|on-demand|longpoll
loom federation set-poll-interval <pair-id> <duration>      (e.g. 30s, 5m, 1h; 1 s to 1 day)
loom federation revoke <pair-id> [--reason <text>]
loom federation keys
loom federation rotate-key [--overlap <duration>]      (e.g. 1h, 7d; default the server's keyOverlapSeconds, 7 days)
  Federation pairs made by the signed handshake; federation:manage. Each takes [--url …] [--token …] [--json].
  pair: this instance asks the peer at <url> to pair (its signed manifest verified first); each side mints a
  90-day token for the other, and a sync pair pulls each way once the pair is active. The peer answers at once
  (posture open) or after its operator runs \`loom federation approve <pair-id>\` (pair-then-ask); this instance
  polls until then. --self-url: where the peer reaches this instance (default: the server's baseUrl, else --url).
  pause: this side pulls nothing and serves nothing to the peer until resume (tokens stay valid).
  refresh: refetch and verify the peer's manifest (a change is recorded), then pull now.
  Modes: polling (default, every 5 min unless set), continuous, on-demand (pulls only on refresh), longpoll.
  A pair whose pulls fail reads degraded, with its last error and next retry; it recovers by itself.
  revoke: terminal; every token issued through the pair dies at once and the peer is told;
  notify-revoke sends that notice again.
  rotate-key: a new key signs for this instance from now on (its DID does not change); the old key countersigns
  the hand-over and stays valid for --overlap, so paired peers follow without re-pairing. keys lists them.`;

const MODES = ['polling', 'continuous', 'on-demand', 'longpoll'] as const;
type Mode = (typeof MODES)[number];

function modeOf(value: string): Mode {
  if (!(MODES as readonly string[]).includes(value)) throw new CliError(`--mode must be one of ${MODES.join(', ')} (got "${value}")`);
  return value as Mode;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30s`, `5m`, `1h`, `1d`, `1500ms` or plain milliseconds → ms (1 s to 1 day). */
export function durationMs(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  const ms = match ? Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!) : NaN;
  if (!Number.isFinite(ms) || ms < 1_000 || ms > 86_400_000) throw new CliError(`a poll interval is a duration from 1s to 1d, like 30s, 5m or 1h (got "${text}")`);
  return ms;
}

/** `--overlap`: a duration from 1 s to 90 days → whole seconds. */
export function overlapSeconds(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  const ms = match ? Math.round(Number(match[1]) * UNITS[match[2] ?? 's']!) : NaN;
  if (!Number.isFinite(ms) || ms < 1_000 || ms > 90 * 86_400_000) throw new CliError(`--overlap is a duration from 1s to 90d, like 1h or 7d (got "${text}")`);
  return Math.round(ms / 1000);
}

function keysText(k: FederationKeys): string {
  const lines = [`did          ${k.did}`, `key          ${k.key}${k.rotated_from ? ` (rotated from ${k.rotated_from})` : ''}`];
  for (const p of k.previous) lines.push(`previous     ${p.key}  ${p.state === 'overlap' ? `valid until ${p.expires_at}` : `expired ${p.expires_at}`}`);
  lines.push(`overlap      ${k.overlap_seconds}s by default${k.rotatable ? '' : '; rotation unavailable here'}`);
  return lines.join('\n') + '\n';
}

const humanMs = (ms: number | null) => (ms === null ? '-' : ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1_000 === 0 ? `${ms / 1_000}s` : `${ms}ms`);
const orDash = (value: string | null | undefined) => value ?? '-';

function pairText(p: FederationPair & { peer_notified?: boolean | null; manifest_changed?: boolean }): string {
  const running = p.state !== 'establishing' && p.state !== 'revoked';
  const lines = [
    `pair         ${p.pair_id}`,
    `state        ${p.state}${p.state === 'paused' ? ` since ${p.paused_at}` : p.state === 'degraded' ? ` since ${p.degraded_at}` : ''}`,
    `role         ${p.role}`,
    `peer         ${p.peer_did}`,
    `url          ${p.peer_url}`,
    `mode         ${p.mode}${p.mode === 'polling' ? ` every ${humanMs(p.poll_interval_ms)}` : ''}`,
    `sync pair    ${running ? p.sync_pair_id : '-'}`,
    `last sync    ${orDash(p.last_sync_at)}`,
    `scopes       ${p.scopes.length > 0 ? p.scopes.join(' ') : '-'}`,
    `issued token ${p.issued_token ? `${p.issued_token.token_id_prefix}… (${p.issued_token.service_account_id}, expires ${p.issued_token.expires_at})` : '-'}`,
    `requested    ${p.requested_at}`,
    `approved     ${orDash(p.approved_at)}${p.approved_by ? ` by ${p.approved_by}` : ''}`,
    `active       ${orDash(p.active_at)}`,
    `revoked      ${p.revoked_at ? `${p.revoked_at} (${p.revoked_by}: ${orDash(p.revoked_reason)})` : '-'}`,
  ];
  if (p.last_error) lines.push(`last error   ${p.last_error.code}: ${p.last_error.message} (${p.last_error.at})`);
  if (p.next_retry_at) lines.push(`next retry   ${p.next_retry_at} (${p.retries} failed in a row)`);
  if (p.token_renewed_at) lines.push(`token renewed ${p.token_renewed_at}; held token expires ${orDash(p.held_token_expires_at)}`);
  if (p.peer_manifest_changed_at) lines.push(`peer manifest changed ${p.peer_manifest_changed_at}`);
  if (p.manifest_changed !== undefined) lines.push(`manifest     ${p.manifest_changed ? 'changed (recorded as peer_manifest_changed)' : 'unchanged'}; verified`);
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
    // ---- relay mailbox (issue 35) ----
    relay: relaySubcommand,
    // ---- end relay mailbox ----
    pair: subcommand({
      summary: 'pairs with the instance at <url> (the signed handshake)',
      args: ['<url>'],
      options: {
        ...CLIENT_OPTIONS,
        mode: { type: 'string', value: MODES.join('|'), help: 'how each side pulls the other (default polling)' },
        'poll-interval': { type: 'string', value: 'duration', help: 'interval of mode polling (default 5m)' },
        'self-url': { type: 'string', value: 'url', help: 'where the peer reaches this instance' },
      },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom federation pair takes the peer's URL\n${FEDERATION_USAGE}`);
        const mode = values.mode === undefined ? undefined : modeOf(values.mode);
        const interval = values['poll-interval'] === undefined ? undefined : durationMs(values['poll-interval']);
        const ctx = clientContext(values);
        const body = {
          url: positionals[0]!,
          ...(values['self-url'] !== undefined ? { self_url: values['self-url'] } : {}),
          ...(mode !== undefined ? { mode } : {}),
          ...(interval !== undefined ? { poll_interval_ms: interval } : {}),
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
          data.data.length === 0
            ? 'no federation pairs\n'
            : textTable(['pair', 'state', 'role', 'peer', 'url', 'mode', 'last error'], data.data.map((p) => [p.pair_id, p.state, p.role, shortId(p.peer_did, 24), p.peer_url, p.mode, p.last_error && (p.state === 'degraded' || p.retries > 0) ? p.last_error.code : '-'])),
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
    pause: subcommand({
      summary: 'pauses a pair: nothing is pulled from or served to the peer until resume',
      args: ['<pair-id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.pauseFederationPair({ path: onePair('pause', positionals) }));
        print(ctx, data, () => pairText(data));
      },
    }),
    resume: subcommand({
      summary: 'resumes a paused pair from its saved cursor',
      args: ['<pair-id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.resumeFederationPair({ path: onePair('resume', positionals) }));
        print(ctx, data, () => pairText(data));
      },
    }),
    refresh: subcommand({
      summary: "refetches and verifies the peer's manifest, then pulls now",
      args: ['<pair-id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.refreshFederationPair({ path: onePair('refresh', positionals) }));
        print(ctx, data, () => pairText(data));
      },
    }),
    'set-mode': subcommand({
      summary: 'sets how this side pulls the peer',
      args: ['<pair-id>', '<mode>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 2) throw new CliError(`loom federation set-mode takes a pair id and a mode (${MODES.join(', ')})\n${FEDERATION_USAGE}`);
        const mode = modeOf(positionals[1]!);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.configureFederationPair({ path: { id: positionals[0]! }, body: { mode } }));
        print(ctx, data, () => pairText(data));
      },
    }),
    'set-poll-interval': subcommand({
      summary: 'sets the interval of mode polling (also the retry backoff cap)',
      args: ['<pair-id>', '<duration>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 2) throw new CliError(`loom federation set-poll-interval takes a pair id and a duration (30s, 5m, 1h)\n${FEDERATION_USAGE}`);
        const interval = durationMs(positionals[1]!);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.configureFederationPair({ path: { id: positionals[0]! }, body: { poll_interval_ms: interval } }));
        print(ctx, data, () => pairText(data));
      },
    }),
    keys: subcommand({
      summary: "this instance's signing key and its previous keys with their expiry",
      args: [],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom federation keys takes no arguments\n${FEDERATION_USAGE}`);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.getFederationKeys());
        print(ctx, data, () => keysText(data));
      },
    }),
    'rotate-key': subcommand({
      summary: 'rotates the instance signing key (the old key countersigns the new one and stays valid for the overlap)',
      args: [],
      options: { ...CLIENT_OPTIONS, overlap: { type: 'string', value: '<duration>', help: 'how long the old key stays valid (default: the server option keyOverlapSeconds, 7 days)' } },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom federation rotate-key takes no arguments\n${FEDERATION_USAGE}`);
        const overlap = values.overlap !== undefined ? overlapSeconds(values.overlap) : undefined;
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.rotateFederationKey({ body: overlap !== undefined ? { overlap_seconds: overlap } : {} }));
        print(ctx, data, () => keysText(data));
      },
    }),
    'notify-revoke': subcommand({
      summary: 'sends the signed revoke notice to the peer again',
      args: ['<pair-id>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.notifyRevokeFederationPair({ path: onePair('notify-revoke', positionals) }));
        print(ctx, data, () => pairText(data));
      },
    }),
  },
});
