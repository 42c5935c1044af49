/**
 * `loom engine health`: the engine loops' counters (GET /v1/engine/health,
 * config:read) as a compact summary: RECONCILE's queue and dispatches, TICK
 * and CRON runs, trigger firings and suppressions, permission denials, the
 * expression cache and errors. --json prints the server's answer as is.
 *
 * The route is not in the published OpenAPI document the SDK is generated
 * from, so the call goes through the SDK's configured fetch client with the
 * response shape declared here.
 */
import { parseArgs } from 'node:util';
import { CliError } from './cli-error.js';
import { call, clientContext, COMMON_OPTIONS, isHelp, print, type ClientContext, type Command } from './client-context.js';
import { formatAge } from './fleet-command.js';

export const ENGINE_USAGE = `loom engine health [--url …] [--token …] [--json]
  The engine loops' health (config:read): RECONCILE's queue, slots and dispatches, TICK and CRON
  runs, trigger firings and suppressions, permission denials, the expression cache and errors.
  Counters are since the server started.`;

interface MaintenanceRun {
  name: string;
  cadence: 'hourly' | 'daily';
  last_run_at: string | null;
  last_duration_ms: number | null;
  last_result: string | null;
  last_error: string | null;
  runs: number;
}

interface EngineHealth {
  object: 'engine_health';
  status: 'ok' | 'degraded';
  uptime_secs: number;
  reconcile: {
    considered: number;
    routed: number;
    queue_depth: number;
    queue_capacity: number;
    max_queue_depth: number;
    in_flight: number;
    max_in_flight: number;
    concurrency: number;
    dispatched: number;
    delivered: number;
    delivery_failures: number;
    held: number;
    duplicates_skipped: number;
    checkpoint: number;
  };
  tick: { interval_secs: number; runs: number; last_run_at: string | null; drift_noted: number };
  cron: { hourly_last_run_at: string | null; daily_last_run_at: string | null; jobs: MaintenanceRun[] };
  triggers: { loaded: number; firings: number; suppressions: { cooldown: number; max_concurrent: number; causal_chain: number; held: number } };
  permissions: { enabled: boolean; rules: number; denials: number; evaluation_errors: number };
  routing: { rules: number; evaluation_errors: number };
  expression_cache: { hits: number; misses: number; compile_errors: number; hit_rate_pct: number; avg_compile_micros: number; size: number; capacity: number };
  errors: { count: number; last: { at: string; context: string; message: string } | null };
}

const health = (ctx: ClientContext) =>
  call(ctx, ctx.client.client.get<{ 200: EngineHealth }, unknown, false>({ url: '/v1/engine/health', security: [{ scheme: 'bearer', type: 'http' }] }));

const when = (at: string | null) => at ?? 'never';

function jobText(job: MaintenanceRun): string {
  const outcome = job.last_error !== null ? `failed: ${job.last_error}` : job.last_run_at === null ? 'not run yet' : `last ${job.last_run_at}${job.last_duration_ms !== null ? ` (${job.last_duration_ms} ms)` : ''}`;
  return `${job.name} (${job.cadence}, ${job.runs} run${job.runs === 1 ? '' : 's'}, ${outcome})`;
}

export function healthText(h: EngineHealth): string {
  const r = h.reconcile;
  const t = h.triggers;
  const c = h.expression_cache;
  const lines = [
    `engine: ${h.status}, up ${formatAge(h.uptime_secs)}`,
    `reconcile: queue ${r.queue_depth}/${r.queue_capacity} (max ${r.max_queue_depth}), in flight ${r.in_flight}/${r.concurrency} (max ${r.max_in_flight}); ` +
      `considered ${r.considered}, routed ${r.routed}, dispatched ${r.dispatched}, delivered ${r.delivered}, delivery failures ${r.delivery_failures}, ` +
      `held ${r.held}, duplicates skipped ${r.duplicates_skipped}; checkpoint ${r.checkpoint}`,
    `tick: every ${h.tick.interval_secs}s, ${h.tick.runs} runs, last ${when(h.tick.last_run_at)}, drift noted ${h.tick.drift_noted}`,
    `cron: hourly last ${when(h.cron.hourly_last_run_at)}, daily last ${when(h.cron.daily_last_run_at)}` +
      (h.cron.jobs.length === 0 ? '' : `; jobs: ${h.cron.jobs.map(jobText).join(', ')}`),
    `triggers: ${t.loaded} loaded, ${t.firings} firings; suppressed: cooldown ${t.suppressions.cooldown}, max_concurrent ${t.suppressions.max_concurrent}, ` +
      `causal_chain ${t.suppressions.causal_chain}, held ${t.suppressions.held}`,
    `permissions: ${h.permissions.enabled ? 'enforced' : 'not enforced'}, ${h.permissions.rules} rules, ${h.permissions.denials} denials, ${h.permissions.evaluation_errors} evaluation errors`,
    `routing: ${h.routing.rules} rules, ${h.routing.evaluation_errors} evaluation errors`,
    `expression cache: ${c.hit_rate_pct}% hit rate (${c.hits} hits, ${c.misses} misses, ${c.compile_errors} compile errors), ${c.size}/${c.capacity} entries, avg compile ${c.avg_compile_micros} µs`,
    h.errors.last === null ? `errors: ${h.errors.count}` : `errors: ${h.errors.count}, last at ${h.errors.last.at} in ${h.errors.last.context}: ${h.errors.last.message}`,
  ];
  return lines.join('\n') + '\n';
}

export const engine: Command = async (argv) => {
  const [sub, ...rest] = argv;
  if (isHelp(sub)) return void process.stdout.write(ENGINE_USAGE + '\n');
  if (sub !== 'health') throw new CliError(`usage:\n${ENGINE_USAGE}`);
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { ...COMMON_OPTIONS } });
  if (values.help) return void process.stdout.write(ENGINE_USAGE + '\n');
  if (positionals.length !== 0) throw new CliError(`loom engine health takes no arguments\n${ENGINE_USAGE}`);
  const ctx = clientContext(values);
  const { data } = await health(ctx);
  print(ctx, data, () => healthText(data));
};
