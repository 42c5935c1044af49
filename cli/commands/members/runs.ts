/**
 * `loom runs [list]` and `loom runs show <thread>`: run rows (GET /v1/runs,
 * GET /v1/runs/{thread}, records:read), each a fold over the run's records
 * in the run-record vocabulary. --json prints the server's answer as is.
 * `show --verify` recomputes the row from the run thread's records up to
 * its watermark (the SDK's verifyRun) and exits 3 on a mismatch, as
 * `loom fold --verify` does.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { didArgument, integerOption } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import { FoldVerificationError, verifyRun, type RunPage, type RunRow, type RunVerification } from '../../../sdk/index.js';
import { FOLD_MISMATCH_EXIT } from '../folds/fold.js';
import { RUNS_CONTROL, RUNS_CONTROL_USAGE } from '../work/runs-control.js';

export const RUNS_USAGE = `loom runs [list] [--state running|waiting_on_you|done|stopped|stopped_short] [--actor <did>]
            [--since <ISO time>] [--limit N] [--url …] [--token …] [--json]
loom runs show <thread> [--verify] [--url …] [--token …] [--json]
  list: runs newest first (at most 2000 read per answer; "capped" says matches may be missing).
  show: one run's row: who ran it, its state, turns and spend against its ceilings, tool calls.
    --verify recomputes the row from the run thread's records up to its watermark and compares:
    "verified: …" (exit 0) or the differences (exit ${FOLD_MISMATCH_EXIT}).
${RUNS_CONTROL_USAGE}`;

const STATES = ['running', 'waiting_on_you', 'done', 'stopped', 'stopped_short'] as const;
type State = (typeof STATES)[number];

const usd = (value: number | null): string => (value === null ? '-' : `$${value.toFixed(4)}`);

function listText(page: RunPage): string {
  const capped = page.capped ? `\n(capped: the newest ${page.scan_ceiling} runs were read; older matches may be missing)\n` : '';
  if (page.data.length === 0) return `no runs${capped || '\n'}`;
  return (
    textTable(
      ['thread', 'state', 'actor', 'turns', 'spent', 'started'],
      page.data.map((r) => [r.thread, r.state, r.actor_name ?? r.actor, `${r.turns}/${r.max_turns ?? '-'}`, `${usd(r.spent_usd)}/${usd(r.ceiling_usd)}`, r.started_at ?? '-']),
    ) + capped
  );
}

function rowText(r: RunRow): string {
  const facts: Array<[string, string]> = [
    ['actor', r.actor_name === null ? r.actor : `${r.actor_name} (${r.actor})`],
    ['state', r.outcome === null ? r.state : `${r.state} (${r.outcome})`],
    ['goal', r.goal],
    ['model', r.model ?? '-'],
    ['turns', `${r.turns} of ${r.max_turns ?? 'unbounded'}`],
    ['spent', `${usd(r.spent_usd)} of ${r.ceiling_usd === null ? 'unbounded' : usd(r.ceiling_usd)}`],
    ['tokens', `${r.input_tokens} in, ${r.output_tokens} out`],
    ['tool calls', `${r.tool_calls_ok} ok, ${r.tool_calls_failed} failed`],
    ['tools', r.tools.length === 0 ? '-' : r.tools.join(', ')],
    ['started', r.started_at ?? '-'],
    ['ended', r.ended_at ?? '-'],
    ['definition', r.definition ?? '- (a loop of its own)'],
  ];
  if (r.summary !== null) facts.push(['summary', r.summary]);
  return `run ${r.thread}\n` + facts.map(([label, value]) => `  ${label.padEnd(10)}  ${value}\n`).join('');
}

/** A value in a difference line: its JSON, or "absent" when that side has nothing there. */
const shown = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));

const MAX_DIFFERENCES = 50;

export function runVerificationText(v: RunVerification): string {
  const what = `run ${v.thread} at watermark ${v.watermark} over ${v.records} record${v.records === 1 ? '' : 's'}`;
  if (v.ok) {
    const r = v.server_row as RunRow;
    return `verified: ${what}: ${r.turns} turn${r.turns === 1 ? '' : 's'}, tool calls ${r.tool_calls_ok} ok ${r.tool_calls_failed} failed, spent ${usd(r.spent_usd)}, outcome ${r.outcome ?? 'none yet'}\n`;
  }
  if (v.local_row === null) return `MISMATCH: ${what}: the records hold no run on this thread, but the server answers a row\n`;
  const first = v.differences.length >= MAX_DIFFERENCES ? ` (the first ${v.differences.length})` : '';
  return (
    `MISMATCH: ${what}: the server's row differs from the one recomputed from the records${first}:\n` +
    v.differences.map((d) => `  ${d.path}: server ${shown(d.server)}, recomputed ${shown(d.local)}\n`).join('')
  );
}

async function verifiedShow(ctx: ClientContext, thread: string): Promise<void> {
  let result: RunVerification;
  try {
    result = await verifyRun(ctx.client, thread, { maxDifferences: MAX_DIFFERENCES });
  } catch (error) {
    if (error instanceof FoldVerificationError) throw new CliError(`cannot verify run ${thread}: ${error.message}`, 1);
    throw error;
  }
  print(ctx, result, () => runVerificationText(result));
  if (!result.ok) throw new CliError(`run ${thread} does not match the records it covers`, FOLD_MISMATCH_EXIT);
}

export const runs = defineCommand({
  name: 'runs',
  summary: 'run rows: members’ runs, their state, turns and spend',
  usage: RUNS_USAGE,
  json: true,
  // `loom runs` alone, or with options only, lists.
  defaultSubcommand: 'list',
  subcommands: {
    list: subcommand({
      summary: 'runs newest first (records:read)',
      options: {
        ...CLIENT_OPTIONS,
        state: { type: 'string', value: STATES.join('|'), help: 'runs in this state only' },
        actor: { type: 'string', value: 'did', help: 'runs of this member only' },
        since: { type: 'string', value: 'ISO time', help: 'runs started at or after it' },
        limit: { type: 'string', value: 'N', help: 'rows at most (default 50, at most 500)' },
      },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom runs list takes no arguments (got "${positionals[0]}")\n${RUNS_USAGE}`);
        if (values.state !== undefined && !(STATES as readonly string[]).includes(values.state)) throw new CliError(`--state must be one of ${STATES.join(', ')}`);
        if (values.since !== undefined && Number.isNaN(Date.parse(values.since))) throw new CliError(`--since ${JSON.stringify(values.since)} is not an ISO 8601 time`);
        const limit = integerOption('limit', values.limit, 1);
        const actor = values.actor === undefined ? undefined : didArgument('--actor', values.actor);
        const ctx = clientContext(values);
        const query = {
          ...(values.state !== undefined ? { state: values.state as State } : {}),
          ...(actor !== undefined ? { actor } : {}),
          ...(values.since !== undefined ? { since: values.since } : {}),
          ...(limit !== undefined ? { limit } : {}),
        };
        const { data } = await call(ctx, ctx.client.listRuns({ query }));
        print(ctx, data, () => listText(data));
      },
    }),
    show: subcommand({
      summary: "one run's row (records:read)",
      args: ['<thread>'],
      options: { ...CLIENT_OPTIONS, verify: { type: 'boolean', default: false, help: 'recompute the row from the run thread’s records and compare' } },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom runs show takes one run thread\n${RUNS_USAGE}`);
        const ctx = clientContext(values);
        if (values.verify) return verifiedShow(ctx, positionals[0]!);
        const { data } = await call(ctx, ctx.client.getRun({ path: { thread: positionals[0]! } }));
        print(ctx, data, () => rowText(data));
      },
    }),
    // ---- runs in progress: cancel, tail, say (cli/commands/work/runs-control.ts) ----
    ...RUNS_CONTROL,
  },
});
