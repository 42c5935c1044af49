/**
 * `loom runs cancel | tail | say`: the doors on a run in progress, as
 * subcommands of `loom runs` (cli/commands/members/runs.ts lists them).
 * cancel: POST /v1/work/loop/{thread}/cancel (the outcome `cancelled`
 * follows within moments); tail: the run live from now, or from its start
 * with --replay, until its outcome, exiting with the outcome's status;
 * say: a person's words the member's next model call reads (POST
 * /v1/runs/{thread}/events, type message).
 */
import { subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import type { RunRow } from '../../../sdk/index.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { RUN_EXIT_HELP } from './run-exit-codes.js';
import { RunView } from './run-view.js';
import { finish, watchRun } from './watch-run.js';

export const RUNS_CONTROL_USAGE = `loom runs cancel <thread> [--reason R] [--url …] [--token …] [--json]
loom runs tail <thread> [--replay] [--url …] [--token …] [--json]
loom runs say <thread> "<text>" [--url …] [--token …] [--json]
  cancel: ends a run with outcome cancelled (the member, who started it, its owner, an operator).
  say: words to a running member; its next model call reads them.
  tail: shows a run live until its outcome, as loom run does; --replay from its first record.
    Ctrl-C quits and leaves the run running. Its exit status is the outcome's:
  ${RUN_EXIT_HELP}`;

const usd = (value: number | null) => (value === null ? 'unbounded' : `$${value.toFixed(4)}`);

/** Where a run stands, for a tail that joins it midway. */
function standingText(row: RunRow): string {
  return `run ${row.thread} (${row.actor_name ?? row.actor}): ${row.state}, turn ${row.turns} of ${row.max_turns ?? 'unbounded'}, spent $${row.spent_usd.toFixed(4)} of ${usd(row.ceiling_usd)}\n`;
}

const oneThread = (positionals: readonly string[], sub: string) => {
  if (positionals.length !== 1) throw new CliError(`loom runs ${sub} takes one run thread\n${RUNS_CONTROL_USAGE}`);
  return positionals[0]!;
};

export const RUNS_CONTROL = {
  cancel: subcommand({
    summary: 'cancel a run (records:write)',
    args: ['<thread>'],
    options: { ...CLIENT_OPTIONS, reason: { type: 'string', value: 'text', help: 'why, written on the cancel record' } },
    run: async ({ values, positionals }) => {
      const thread = oneThread(positionals, 'cancel');
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.cancelWorkLoop({ path: { thread }, body: values.reason !== undefined ? { reason: values.reason } : {} }));
      print(ctx, data, () =>
        data.cancel === null ? `run ${thread} had already ended (${data.state}); nothing written\n` : `cancel written (${data.cancel}); run ${thread} ends with outcome cancelled (loom runs tail ${thread} to watch)\n`,
      );
    },
  }),
  tail: subcommand({
    summary: 'follow a run live until its outcome (records:read)',
    args: ['<thread>'],
    options: { ...CLIENT_OPTIONS, replay: { type: 'boolean', default: false, help: 'show the run from its first record' } },
    run: async ({ values, positionals }) => {
      const thread = oneThread(positionals, 'tail');
      const ctx = clientContext(values);
      // The status door first: its refusal carries the server's code, and its row is where a tail without --replay starts.
      const { data: status } = await call(ctx, ctx.client.getWorkLoop({ path: { thread } }));
      const row = status.run;
      if (values.replay) return watchRun(ctx, { thread, actor: row.actor, after: 0, view: new RunView(), cancelOnInterrupt: false });
      if (row.outcome !== null) {
        process.stdout.write(ctx.json ? JSON.stringify(row) + '\n' : `${standingText(row)}outcome: ${row.outcome} (it has ended; --replay shows it from its start)\n`);
        return finish(thread, row.outcome);
      }
      if (!ctx.json) process.stdout.write(standingText(row));
      // From the row's watermark: every record after what the row already counts, none twice.
      await watchRun(ctx, { thread, actor: row.actor, after: row.watermark, view: RunView.fromRow(row), cancelOnInterrupt: false });
    },
  }),
  say: subcommand({
    summary: 'words to a running member (records:write)',
    args: ['<thread>', '"<text>"'],
    options: { ...CLIENT_OPTIONS },
    run: async ({ values, positionals }) => {
      if (positionals.length !== 2) throw new CliError(`loom runs say takes a run thread and the text\n${RUNS_CONTROL_USAGE}`);
      const [thread, text] = positionals as [string, string];
      if (text.trim() === '') throw new CliError('the text is empty');
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.postRunEvent({ path: { thread }, body: { type: 'message', text } }));
      print(ctx, data, () => `message written (${data.record}); the member reads it on its next turn\n`);
    },
  }),
};
