/**
 * `loom engine health`: the engine loops' counters (GET /v1/engine/health,
 * config:read) as a compact summary: RECONCILE's queue and dispatches, TICK
 * and CRON runs, trigger firings and suppressions, permission denials, the
 * expression cache and errors. --json prints the server's answer as is.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { formatAge } from '../../kit/format-age.js';
import type { GetEngineHealthResponses } from '../../../sdk/index.js';

export const ENGINE_USAGE = `loom engine health [--url …] [--token …] [--json]
  The engine loops' health (config:read): RECONCILE's queue, slots and dispatches, TICK and CRON
  runs, trigger firings and suppressions, permission denials, the expression cache and errors.
  Counters are since the server started.`;

type EngineHealth = GetEngineHealthResponses[200];
type MaintenanceRun = EngineHealth['cron']['jobs'][number];

const health = (ctx: ClientContext) => call(ctx, ctx.client.getEngineHealth());

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

export const engine = defineCommand({
  name: 'engine',
  summary: "the engine loops' health",
  usage: ENGINE_USAGE,
  json: true,
  subcommands: {
    health: subcommand({
      summary: "the engine loops' counters since the server started",
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom engine health takes no arguments\n${ENGINE_USAGE}`);
        const ctx = clientContext(values);
        const { data } = await health(ctx);
        print(ctx, data, () => healthText(data));
      },
    }),
  },
});
