/**
 * `loom federation relay status|set|clear|serve`: the relay mailbox (issue 35).
 * - status: what this instance deposits for silent peers, what it received and
 *   rejected from its mailbox, what it serves (GET /v1/federation/relay).
 * - set <relay-url> [--for <peer-did>|all] [--silence <duration>] [--poll-interval <duration>]:
 *   the `federation.relay` record for a peer (default all).
 * - clear [--for …]: the same record with enabled false.
 * - serve on|off [--max-envelopes N] [--ttl <duration>]: the `federation.relay_mailbox`
 *   record, whether this instance serves mailboxes for others.
 * Each takes [--url …] [--token …] [--json] (--json prints the server's answer as is).
 */
import { subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const RELAY_USAGE = `loom federation relay status
loom federation relay set <relay-url> [--for <peer-did>|all] [--silence <duration>] [--poll-interval <duration>]
loom federation relay clear [--for <peer-did>|all]
loom federation relay serve on|off [--max-envelopes <n>] [--ttl <duration>]
  The relay mailbox: when a peer's pulls stop arriving for --silence (default 3 × the poll interval, at least 1m),
  this instance deposits signed envelopes for it at the relay; it polls its own mailbox there every --poll-interval
  (default 30s), verifies every envelope end to end, stores its records and acks it. serve on: this instance
  keeps mailboxes for others (cap --max-envelopes per receiver, default 10000; --ttl default 30d).
  Each takes [--url …] [--token …] [--json].`;

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

function duration(text: string, what: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  const ms = match ? Math.round(Number(match[1]) * UNITS[match[2] ?? 'ms']!) : NaN;
  if (!Number.isFinite(ms) || ms < 50) throw new CliError(`${what} is a duration like 500ms, 30s, 15m or 30d (got "${text}")`);
  return ms;
}

interface RelayStatus {
  relays: Array<{ url: string; for_pair: string; silence_ms: number | null; poll_interval_ms: number }>;
  sending: Array<{ pair_id: string; peer_did: string; relay_url: string | null; pushing: boolean; envelopes_deposited: number; records_deposited: number; last_error: { code: string } | null }>;
  receiving: Array<{ relay_url: string; last_poll_at: string | null; envelopes_taken: number; envelopes_rejected: number; records_accepted: number; records_deduplicated: number; last_error: { code: string } | null }>;
  rejected: Array<{ envelope_id: string; sender: string | null; code: string; records: number; at: string }>;
  serving: { enabled: boolean; max_envelopes: number; ttl_seconds: number; mailboxes: Array<{ receiver: string; envelopes: number; oldest_at: string | null }> };
}

function statusText(s: RelayStatus): string {
  const parts = [
    s.relays.length === 0 ? 'relays       none configured (loom federation relay set <url>)\n' : textTable(['relay', 'for', 'silence ms', 'poll ms'], s.relays.map((r) => [r.url, r.for_pair === 'all' ? 'all' : shortId(r.for_pair, 24), r.silence_ms === null ? 'default' : String(r.silence_ms), String(r.poll_interval_ms)])),
    s.sending.length === 0 ? 'sending      no active pairs\n' : textTable(['pair', 'peer', 'relay', 'pushing', 'envelopes', 'records', 'last error'], s.sending.map((p) => [p.pair_id, shortId(p.peer_did, 24), p.relay_url ?? '-', p.pushing ? 'yes (peer silent)' : 'no', String(p.envelopes_deposited), String(p.records_deposited), p.last_error?.code ?? '-'])),
    s.receiving.length === 0 ? 'receiving    no mailbox polled yet\n' : textTable(['mailbox at', 'last poll', 'taken', 'rejected', 'records new', 'records dup', 'last error'], s.receiving.map((r) => [r.relay_url, r.last_poll_at ?? '-', String(r.envelopes_taken), String(r.envelopes_rejected), String(r.records_accepted), String(r.records_deduplicated), r.last_error?.code ?? '-'])),
    s.rejected.length === 0 ? 'rejected     none\n' : textTable(['rejected envelope', 'sender', 'code', 'records', 'at'], s.rejected.map((r) => [r.envelope_id, r.sender ? shortId(r.sender, 24) : '-', r.code, String(r.records), r.at])),
    `serving      ${s.serving.enabled ? `on (cap ${s.serving.max_envelopes} per receiver, ttl ${s.serving.ttl_seconds}s)` : 'off'}\n`,
    ...(s.serving.mailboxes.length > 0 ? [textTable(['mailbox of', 'envelopes', 'oldest'], s.serving.mailboxes.map((m) => [shortId(m.receiver, 24), String(m.envelopes), m.oldest_at ?? '-']))] : []),
  ];
  return parts.join('');
}

export const relaySubcommand = subcommand({
  summary: 'the relay mailbox: status, set/clear the relay for peers, serve mailboxes',
  args: ['status|set|clear|serve', '[…]'],
  options: {
    ...CLIENT_OPTIONS,
    for: { type: 'string', value: 'peer-did|all', help: 'the peer the relay is for (default all)' },
    silence: { type: 'string', value: 'duration', help: 'deposit once the peer has not pulled for this long' },
    'poll-interval': { type: 'string', value: 'duration', help: 'how often this instance polls its mailbox (default 30s)' },
    'max-envelopes': { type: 'string', value: 'n', help: 'serve: envelopes kept per receiver (default 10000)' },
    ttl: { type: 'string', value: 'duration', help: 'serve: how long an envelope is kept (default 30d)' },
  },
  run: async ({ values, positionals }) => {
    const [action, ...rest] = positionals;
    const ctx = clientContext(values);
    switch (action) {
      case 'status': {
        if (rest.length !== 0) throw new CliError(`loom federation relay status takes no arguments\n${RELAY_USAGE}`);
        const { data } = await call(ctx, ctx.client.getFederationRelay());
        print(ctx, data, () => statusText(data as unknown as RelayStatus));
        return;
      }
      case 'set':
      case 'clear': {
        if (action === 'set' ? rest.length !== 1 : rest.length !== 0) throw new CliError(`loom federation relay ${action} ${action === 'set' ? 'takes the relay URL' : 'takes no arguments'}\n${RELAY_USAGE}`);
        const forPair = values.for ?? 'all';
        let url: string | undefined = rest[0];
        if (action === 'clear') {
          const { data } = await call(ctx, ctx.client.getFederationRelay());
          url = (data as unknown as RelayStatus).relays.find((r) => r.for_pair === forPair)?.url;
          if (!url) throw new CliError(`no relay is set for ${forPair}`);
        }
        const body = {
          url: url!,
          for_pair: forPair,
          enabled: action === 'set',
          ...(values.silence !== undefined ? { silence_ms: duration(values.silence, '--silence') } : {}),
          ...(values['poll-interval'] !== undefined ? { poll_interval_ms: duration(values['poll-interval'], '--poll-interval') } : {}),
        };
        const { data } = await call(ctx, ctx.client.writeConfigTopic({ path: { topic: 'federation.relay' }, body }));
        print(ctx, data, () => (action === 'set' ? `relay for ${forPair}: ${url}\n` : `relay for ${forPair}: off\n`));
        return;
      }
      case 'serve': {
        if (rest.length !== 1 || (rest[0] !== 'on' && rest[0] !== 'off')) throw new CliError(`loom federation relay serve takes on or off\n${RELAY_USAGE}`);
        const max = values['max-envelopes'] === undefined ? undefined : Number(values['max-envelopes']);
        if (max !== undefined && !(Number.isInteger(max) && max >= 1)) throw new CliError('--max-envelopes is a whole number from 1');
        const body = {
          serve: rest[0] === 'on',
          ...(max !== undefined ? { max_envelopes: max } : {}),
          ...(values.ttl !== undefined ? { ttl_seconds: Math.max(1, Math.round(duration(values.ttl, '--ttl') / 1000)) } : {}),
        };
        const { data } = await call(ctx, ctx.client.writeConfigTopic({ path: { topic: 'federation.relay_mailbox' }, body }));
        print(ctx, data, () => `serving mailboxes: ${rest[0]}\n`);
        return;
      }
      default:
        throw new CliError(`loom federation relay takes status, set, clear or serve\n${RELAY_USAGE}`);
    }
  },
});
