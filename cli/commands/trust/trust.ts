/**
 * `loom trust` and `loom trust principals`: trust scores from judged
 * outcomes (GET /v1/trust and GET /v1/folds/principal_trust, records:read).
 * Scores are read at the server's clock (decay is applied when read), over
 * only the verdicts the caller may read. --json prints the server's answer as is.
 */
import { defineCommand } from '../../../command/define-command.js';
import { didArgument } from '../../kit/options.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { integerOption } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import type { PrincipalTrustAnswer, TrustList } from '../../../sdk/index.js';

export const TRUST_USAGE = `loom trust [--actor <did>] [--domain <domain>] [--judged-by <did>] [--group judge|actor_domain]
           [--limit N] [--after <cursor>] [--url …] [--token …] [--json]
loom trust principals [--url …] [--token …] [--json]
  Trust scores (records:read): the Wilson lower bound (95%) of verdicts weighted by a 90-day
  half-life, best first. One row per (worker, domain, judge) (--group judge, the default), or per
  (worker, domain) with every judge together (--group actor_domain). --limit rows per page (default
  100, at most 1000), the next page with --after. principals: one row per (person, domain), every
  DID resolving to the person merged.`;

const GROUPS = ['judge', 'actor_domain'] as const;
type Group = (typeof GROUPS)[number];

/** Options of the list only. */
const LIST_OPTIONS = ['actor', 'domain', 'judged-by', 'group', 'limit', 'after'] as const;

const ratio = (weighted: number, total: number) => `${weighted}/${total}`;

function listText(data: TrustList): string {
  const s = data.stats;
  const footer =
    `as of ${data.as_of}, half-life ${data.half_life_days} days, watermark ${data.watermark}; ` +
    `verdicts ${s.verdicts} (in force ${s.in_force}, self-judged ${s.self_judgments}, unattributed ${s.unattributed}, unrecognized words ${s.unrecognized_words})\n`;
  if (data.data.length === 0) return 'no trust scores\n' + footer;
  const rows = data.data.map((r) => [
    r.actor,
    r.domain,
    r.judged_by ?? `all (${r.judges})`,
    r.score.toFixed(4),
    String(r.successes),
    String(r.failures),
    ratio(r.weighted_successes, r.weighted_total),
    r.last_verdict_at,
  ]);
  const more = data.has_more && data.next_cursor !== null ? `… more: --after ${data.next_cursor}\n` : '';
  return textTable(['actor', 'domain', 'judged by', 'score', 'successes', 'failures', 'weighted', 'last verdict'], rows) + more + footer;
}

function principalsText(data: PrincipalTrustAnswer): string {
  const v = data.value;
  const footer = `as of ${v.as_of}, half-life ${v.half_life_days} days, watermark ${data.watermark}\n`;
  if (v.rows.length === 0) return 'no trust scores\n' + footer;
  const rows = v.rows.map((r) => [r.principal, r.domain, r.score.toFixed(4), String(r.successes), String(r.failures), String(r.judges), r.dids.join(', ')]);
  return textTable(['principal', 'domain', 'score', 'successes', 'failures', 'judges', 'dids'], rows) + footer;
}

function groupOption(text: string | undefined): Group | undefined {
  if (text === undefined) return undefined;
  if (!(GROUPS as readonly string[]).includes(text)) throw new CliError(`--group must be one of ${GROUPS.join(', ')} (got "${text}")`);
  return text as Group;
}

export const trust = defineCommand({
  name: 'trust',
  summary: 'trust scores',
  usage: TRUST_USAGE,
  json: true,
  args: ['[principals]'],
  options: {
    ...CLIENT_OPTIONS,
    actor: { type: 'string' },
    domain: { type: 'string' },
    'judged-by': { type: 'string' },
    group: { type: 'string' },
    limit: { type: 'string' },
    after: { type: 'string' },
  },
  run: async ({ values, positionals }) => {
    if (positionals[0] === 'help') return void process.stdout.write(TRUST_USAGE + '\n');
    const sub = positionals[0] === 'principals' ? 'principals' : 'list';
    const rest = sub === 'principals' ? positionals.slice(1) : positionals;
    if (rest.length !== 0) throw new CliError(`unknown argument "${rest[0]}" of loom trust${rest[0]!.startsWith('did:') ? `; for one worker: loom trust --actor ${rest[0]}` : ''}\n${TRUST_USAGE}`);
    if (sub === 'principals') {
      for (const option of LIST_OPTIONS) if (values[option] !== undefined) throw new CliError(`--${option} applies to loom trust only, not loom trust principals`);
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.getPrincipalTrust());
      return print(ctx, data, () => principalsText(data));
    }
    const query = {
      ...(values.actor !== undefined ? { actor: didArgument('--actor', values.actor) } : {}),
      ...(values['judged-by'] !== undefined ? { judged_by: didArgument('--judged-by', values['judged-by']) } : {}),
      ...(values.domain !== undefined ? { domain: values.domain } : {}),
      ...(values.group !== undefined ? { group: groupOption(values.group) } : {}),
      ...(values.limit !== undefined ? { limit: integerOption('limit', values.limit, 1) } : {}),
      ...(values.after !== undefined ? { after: values.after } : {}),
    };
    const ctx = clientContext(values);
    const { data } = await call(ctx, ctx.client.listTrust({ query }));
    print(ctx, data, () => listText(data));
  },
});
