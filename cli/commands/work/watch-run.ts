/**
 * Shows a run live until its outcome, then answers with the outcome's exit
 * status (run-exit-codes.ts): what `loom run`, `loom work loop` and `loom
 * runs tail` share. Human output is RunView's lines; `--json` is NDJSON, one
 * `{object: "run_record", sequence, record}` line per record and a last line
 * with the run row (`object: "run"`).
 *
 * Ctrl-C: where the command started the run, the first asks the server to
 * cancel it (POST /v1/work/loop/{thread}/cancel) and keeps following until
 * the `cancelled` outcome lands, the second quits at once; where it only
 * watches (`runs tail`), the first quits, and the run goes on.
 */
import { CliError } from '../../../command/cli-error.js';
import type { Record as LoomRecord, RunRow } from '../../../sdk/index.js';
import { call, type ClientContext } from '../../kit/context.js';
import { followRun } from './follow-run.js';
import { exitCodeOf, INTERRUPTED_EXIT } from './run-exit-codes.js';
import type { RunView } from './run-view.js';

export interface WatchOptions {
  readonly thread: string;
  /** The run's actor; null: learnt from the opening record (then `after` is 0). */
  readonly actor: string | null;
  /** Show the records after this sequence (0: the whole run). */
  readonly after: number;
  readonly view: RunView;
  /** The first Ctrl-C cancels the run (the command started it); else it quits. */
  readonly cancelOnInterrupt: boolean;
}

const ROW_WAIT_MS = 5_000;

function line(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

export async function watchRun(ctx: ClientContext, options: WatchOptions): Promise<void> {
  const { thread } = options;
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts += 1;
    if (interrupts > 1 || !options.cancelOnInterrupt) {
      process.stderr.write(options.cancelOnInterrupt ? `\nloom: quit; run ${thread} may still be ending (loom runs tail ${thread})\n` : '\n');
      process.exit(INTERRUPTED_EXIT);
    }
    process.stderr.write(`\nloom: cancelling run ${thread}; its outcome follows (Ctrl-C again to quit now)\n`);
    call(ctx, ctx.client.cancelWorkLoop({ path: { thread }, body: { reason: 'interrupted at the loom CLI' } })).catch((error: unknown) => {
      process.stderr.write(`loom: the cancel was not taken: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  };
  process.on('SIGINT', onInterrupt);
  let outcome: { sequence: number; record: LoomRecord } | null;
  try {
    outcome = await followRun(ctx, {
      thread,
      actor: options.actor,
      after: options.after,
      onRecord: (sequence, record) => (ctx.json ? line({ object: 'run_record', sequence, record }) : process.stdout.write(options.view.render(record))),
    });
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  if (outcome === null) return;
  if (ctx.json) line(await settledRow(ctx, thread, outcome.sequence));
  finish(thread, String(outcome.record.body['outcome'] ?? 'unknown'));
}

/** Exit 0 for `completed`, else the outcome's own status with a one-line reason on stderr. */
export function finish(thread: string, outcome: string): void {
  const code = exitCodeOf(outcome);
  if (code !== 0) throw new CliError(`run ${thread} ended ${outcome}`, code, 'RUN_NOT_COMPLETED');
}

/**
 * The run row once it covers the outcome: the row is a fold the server
 * updates as records land, so it may trail the stream by moments.
 */
export async function settledRow(ctx: ClientContext, thread: string, sequence: number): Promise<RunRow> {
  const deadline = Date.now() + ROW_WAIT_MS;
  for (;;) {
    const { data } = await call(ctx, ctx.client.getRun({ path: { thread } }));
    if (data.watermark >= sequence || data.outcome !== null || Date.now() > deadline) return data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
