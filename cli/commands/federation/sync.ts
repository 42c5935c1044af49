/**
 * `loom sync pairs|add|show|pause|resume|kick|rm|stats|health`: the sync
 * pairs of a running server with federation enabled (the /v1/sync/pairs and
 * /v1/sync/health routes, federation:manage). --json prints the server's
 * answer as is.
 *
 * The peer's bearer is read from --peer-token-file or LOOM_PEER_TOKEN rather
 * than only a flag: a flag is visible to every user of the machine in the
 * process list. The server stores it in a 0600 file and never echoes it.
 */
import { readFile } from 'node:fs/promises';
import { defineCommand, subcommand, type OptionValues } from '../../../command/define-command.js';
import type { SyncPair } from '../../../sdk/index.js';
import { CliError } from '../../../command/cli-error.js';
import { clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { federationCall } from './federation-call.js';
import { integerOption, shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';

export const SYNC_USAGE = `loom sync pairs
loom sync add --peer-did <did:key:…> --peer-url <url> (--peer-token-file <file> | LOOM_PEER_TOKEN=… | --peer-token <t>)
              [--thread <th_…>] [--target-namespace <ns>] [--mode continuous|longpoll|polling] [--poll-interval-ms N]
loom sync show|pause|resume|kick|rm|stats <pair-id>
loom sync health
  Sync pairs on this (target) instance, each pulling a peer (the source); federation:manage. Each takes
  [--url …] [--token …] [--json]. add: the peer token is a bearer of the source with federation:sync
  (and federation:subscribe for continuous) plus read scopes; it is stored 0600 and never shown again.
  pause keeps the cursor; resume continues from it; kick pulls now (ends a poll interval or a backoff
  wait); rm removes the pair (records already pulled stay). stats and health: the last hour, in memory.`;



const MODES = ['continuous', 'longpoll', 'polling'] as const;

const ADD_OPTIONS = {
  ...CLIENT_OPTIONS,
  'peer-did': { type: 'string', value: 'did:key:…', help: "the source's DID" },
  'peer-url': { type: 'string', value: 'url', help: "the source's URL" },
  'peer-token': { type: 'string', value: 't', help: 'the bearer on the source (visible in the process list: prefer --peer-token-file)' },
  'peer-token-file': { type: 'string', value: 'file', help: 'a file holding the bearer (else LOOM_PEER_TOKEN)' },
  thread: { type: 'string', value: 'th_…', help: 'pull one thread only' },
  'target-namespace': { type: 'string', value: 'ns', help: 'where the pulled records land' },
  mode: { type: 'string', value: 'continuous|longpoll|polling', help: 'how to pull' },
  'poll-interval-ms': { type: 'string', value: 'N', help: 'the poll interval (polling)' },
} as const;

type Values = OptionValues<typeof ADD_OPTIONS>;

const orDash = (value: string | number | null | undefined) => (value === null || value === undefined ? '-' : String(value));

function pairRows(pairs: readonly SyncPair[]): string {
  if (pairs.length === 0) return 'no sync pairs\n';
  const rows = pairs.map((p) => [p.pair_id, shortId(p.peer_did, 24), p.peer_url, p.thread_id ?? '*', p.target_namespace, p.mode, p.state, orDash(p.last_sync_at), p.last_error ? `${p.last_error.code}: ${p.last_error.message}` : '-']);
  return textTable(['pair', 'peer', 'url', 'thread', 'into', 'mode', 'state', 'last sync', 'last error'], rows);
}

function pairText(p: SyncPair): string {
  const lines = [
    `pair         ${p.pair_id}`,
    `peer         ${p.peer_did}`,
    `url          ${p.peer_url}`,
    `thread       ${p.thread_id ?? '* (every thread the grant allows)'}`,
    `into         ${p.target_namespace}`,
    `mode         ${p.mode}${p.mode === 'polling' ? ` every ${p.poll_interval_ms} ms` : ''}`,
    `state        ${p.state}${p.retries > 0 ? ` (${p.retries} consecutive failures)` : ''}`,
    `cursor       ${orDash(p.cursor)}`,
    `last sync    ${orDash(p.last_sync_at)}`,
    `next attempt ${orDash(p.next_attempt_at)}`,
    `last error   ${p.last_error ? `${p.last_error.code}: ${p.last_error.message} (at ${p.last_error.at})` : '-'}`,
    `created      ${p.created_at}`,
  ];
  return lines.join('\n') + '\n';
}

/** The peer bearer: --peer-token-file, else LOOM_PEER_TOKEN, else --peer-token (one of them, and not empty). */
async function peerToken(values: Values): Promise<string> {
  const given = [values['peer-token-file'] !== undefined, values['peer-token'] !== undefined].filter(Boolean).length;
  if (given > 1) throw new CliError('give the peer token once: --peer-token-file or --peer-token');
  let token: string | undefined;
  if (values['peer-token-file'] !== undefined) {
    token = (
      await readFile(values['peer-token-file'], 'utf8').catch((error: Error) => {
        throw new CliError(`cannot read --peer-token-file: ${error.message}`, 1);
      })
    ).trim();
  } else {
    token = values['peer-token'] ?? process.env['LOOM_PEER_TOKEN'];
  }
  if (!token) throw new CliError(`a peer token is required (--peer-token-file, LOOM_PEER_TOKEN or --peer-token)\n${SYNC_USAGE}`);
  return token;
}

async function add(ctx: ClientContext, values: Values): Promise<void> {
  if (!values['peer-did']) throw new CliError(`--peer-did is required (the source's instance_did, from its GET /health)\n${SYNC_USAGE}`);
  if (!values['peer-url']) throw new CliError(`--peer-url is required\n${SYNC_USAGE}`);
  const mode = values.mode;
  if (mode !== undefined && !(MODES as readonly string[]).includes(mode)) throw new CliError(`--mode must be one of ${MODES.join(', ')} (got "${mode}")`);
  const body = {
    peer_did: values['peer-did'],
    peer_url: values['peer-url'],
    peer_token: await peerToken(values),
    ...(values.thread !== undefined ? { thread_id: values.thread } : {}),
    ...(values['target-namespace'] !== undefined ? { target_namespace: values['target-namespace'] } : {}),
    ...(mode !== undefined ? { mode: mode as (typeof MODES)[number] } : {}),
    ...(values['poll-interval-ms'] !== undefined ? { poll_interval_ms: integerOption('poll-interval-ms', values['poll-interval-ms'], 10)! } : {}),
  };
  const { data } = await federationCall(ctx, ctx.client.createSyncPair({ body }));
  if (data.warning && !ctx.json) process.stderr.write(`loom: warning: ${data.warning}\n`);
  print(ctx, data, () => pairText(data));
}

function statsText(data: Record<string, unknown>): string {
  const s = data as {
    pair_id: string;
    state: string;
    rolling_rate: { per_minute_last_5m: number; per_minute_last_hour: number };
    latency_histogram: { p50_ms: number | null; p95_ms: number | null; p99_ms: number | null };
    errors_last_hour: number;
    poll_interval: { mode: string; interval_ms: number; backoff_ms: number; retries: number; next_attempt_at: string | null };
    counters: Record<string, unknown>;
  };
  const counters = Object.entries(s.counters)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `pair      ${s.pair_id} (${s.state})`,
    `rate      ${s.rolling_rate.per_minute_last_5m}/min over 5 min, ${s.rolling_rate.per_minute_last_hour}/min over the hour`,
    `latency   p50 ${orDash(s.latency_histogram.p50_ms)} ms, p95 ${orDash(s.latency_histogram.p95_ms)} ms, p99 ${orDash(s.latency_histogram.p99_ms)} ms`,
    `errors    ${s.errors_last_hour} in the last hour, ${s.poll_interval.retries} consecutive`,
    `polling   ${s.poll_interval.mode}, interval ${s.poll_interval.interval_ms} ms, backoff ${s.poll_interval.backoff_ms} ms, next ${orDash(s.poll_interval.next_attempt_at)}`,
    `totals    ${counters}`,
  ].join('\n') + '\n';
}

function healthText(data: Record<string, unknown>): string {
  const h = data as {
    pairs_total: number;
    pairs_by_state: Record<string, number>;
    records_pulled_last_hour: number;
    mean_delivery_latency_ms: number | null;
    p95_delivery_latency_ms: number | null;
    most_errored_pairs: { pair_id: string; errors_last_hour: number }[];
    drift_alerts: { record_id: string; existing_id: string | null; thread: string; clock: number }[];
    conflicts_total?: number;
  };
  const states = Object.entries(h.pairs_by_state).map(([k, v]) => `${v} ${k}`).join(', ');
  const lines = [
    `pairs     ${h.pairs_total} (${states})`,
    `pulled    ${h.records_pulled_last_hour} records in the last hour`,
    `latency   mean ${orDash(h.mean_delivery_latency_ms)} ms, p95 ${orDash(h.p95_delivery_latency_ms)} ms`,
  ];
  for (const p of h.most_errored_pairs) lines.push(`errors    ${p.pair_id}: ${p.errors_last_hour} in the last hour`);
  if ((h.conflicts_total ?? 0) > 0) lines.push(`conflicts ${h.conflicts_total} federated records quarantined (a local record holds their clock slot); --json lists them`);
  return lines.join('\n') + '\n';
}

type Pair = { id: string };

/** A subcommand that sends one request: `arity` 1 takes the pair id. */
function request(summary: string, arity: 0 | 1, act: (ctx: ClientContext, path: Pair) => Promise<void>) {
  return subcommand({
    summary,
    ...(arity === 1 ? { args: ['<pair-id>'] } : {}),
    options: CLIENT_OPTIONS,
    run: async ({ values, positionals }, { name }) => {
      if (positionals.length !== arity) throw new CliError(arity === 1 ? `loom ${name} takes one pair id\n${SYNC_USAGE}` : `loom ${name} takes no arguments\n${SYNC_USAGE}`);
      await act(clientContext(values), { id: positionals[0]! });
    },
  });
}

export const sync = defineCommand({
  name: 'sync',
  summary: 'federation pairs',
  usage: SYNC_USAGE,
  json: true,
  bareIsHelp: true,
  unknownSubcommand: (sub) => `unknown subcommand "loom sync ${sub}"\n${SYNC_USAGE}`,
  subcommands: {
    pairs: request('the sync pairs of this (target) instance', 0, async (ctx) => {
      const { data } = await federationCall(ctx, ctx.client.listSyncPairs());
      print(ctx, data, () => pairRows(data.data));
    }),
    add: subcommand({
      summary: 'a pair pulling a peer (the source); the peer token is stored 0600 and never shown again',
      options: ADD_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom sync add takes no arguments\n${SYNC_USAGE}`);
        return add(clientContext(values), values);
      },
    }),
    show: request('one pair', 1, async (ctx, path) => {
      const { data } = await federationCall(ctx, ctx.client.getSyncPair({ path }));
      print(ctx, data, () => pairText(data));
    }),
    pause: request('pauses a pair, keeping its cursor', 1, async (ctx, path) => {
      const { data } = await federationCall(ctx, ctx.client.pauseSyncPair({ path }));
      print(ctx, data, () => `paused ${data.pair_id} at cursor ${orDash(data.cursor)}\n`);
    }),
    resume: request('resumes a pair from its cursor', 1, async (ctx, path) => {
      const { data } = await federationCall(ctx, ctx.client.resumeSyncPair({ path }));
      print(ctx, data, () => `resumed ${data.pair_id} from cursor ${orDash(data.cursor)}\n`);
    }),
    kick: request('pulls now (ends a poll interval or a backoff wait)', 1, async (ctx, path) => {
      const { data } = await federationCall(ctx, ctx.client.kickSyncPair({ path }));
      print(ctx, data, () => `kicked ${data.pair_id} (${data.state})\n`);
    }),
    rm: request('removes a pair (records already pulled stay)', 1, async (ctx, path) => {
      const { data } = await federationCall(ctx, ctx.client.deleteSyncPair({ path }));
      print(ctx, data, () => `removed ${data.pair_id}; records already pulled stay\n`);
    }),
    stats: request("a pair's last hour, in memory", 1, async (ctx, path) => {
      const { data } = await federationCall(ctx, ctx.client.getSyncPairStats({ path }));
      print(ctx, data, () => statsText(data));
    }),
    health: request('every pair over the last hour, in memory', 0, async (ctx) => {
      const { data } = await federationCall(ctx, ctx.client.getSyncHealth());
      print(ctx, data, () => healthText(data));
    }),
  },
});
