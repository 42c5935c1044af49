/**
 * `loom run <member> "<goal>"`: starts a run as a member (POST
 * /v1/actors/{did}/runs) and shows it live until its outcome (watch-run.ts),
 * exiting with the outcome's status. `--detach` prints the run's thread and
 * leaves it running (follow it later with `loom runs tail`).
 */
import { defineCommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { integerOption, numberOption } from '../../kit/options.js';
import { resolveMember } from './member-argument.js';
import { RUN_EXIT_HELP } from './run-exit-codes.js';
import { RunView } from './run-view.js';
import { watchRun } from './watch-run.js';

export const RUN_USAGE = `loom run <member> "<goal>" [--max-turns N] [--budget-usd X] [--model M] [--source-thread T]
            [--detach] [--url …] [--token …] [--json]
  Runs a goal as a member (a DID, or the label of a member you defined) and shows it live: each turn
  with its tokens, cost and the spend against the run's ceiling, each tool call and its result, provider
  errors, guardrail verdicts, people's messages, the outcome. Ctrl-C once cancels the run and waits for
  its outcome; twice quits at once. --json: one JSON line per record, then the run row.
  --detach prints the run's thread and leaves it running (loom runs tail <thread> follows it).
  ${RUN_EXIT_HELP}`;

export const run = defineCommand({
  name: 'run',
  summary: 'run a goal as a member and follow it live',
  usage: RUN_USAGE,
  json: true,
  args: ['<member>', '<goal>'],
  options: {
    ...CLIENT_OPTIONS,
    'max-turns': { type: 'string', value: 'N', help: 'turns at most (narrowed by the member’s and its tier’s)' },
    'budget-usd': { type: 'string', value: 'USD', help: 'spend at most (narrowed by the member’s and its tier’s)' },
    model: { type: 'string', value: 'model', help: 'a catalog model instead of the member’s' },
    'source-thread': { type: 'string', value: 'thread', help: 'the thread the run works on' },
    detach: { type: 'boolean', default: false, help: 'print the thread and exit; the run goes on' },
  },
  run: async ({ values, positionals }) => {
    if (positionals.length !== 2) throw new CliError(`loom run takes a member and a goal\n${RUN_USAGE}`);
    const [member, goal] = positionals as [string, string];
    if (goal.trim() === '') throw new CliError('the goal is empty');
    const maxTurns = integerOption('max-turns', values['max-turns'], 1);
    const budget = numberOption('budget-usd', values['budget-usd']);
    const ctx = clientContext(values);
    const did = await resolveMember(ctx, member);
    const body = {
      goal,
      ...(maxTurns !== undefined ? { max_turns: maxTurns } : {}),
      ...(budget !== undefined ? { budget_usd: budget } : {}),
      ...(values.model !== undefined ? { model_override: values.model } : {}),
      ...(values['source-thread'] !== undefined ? { source_thread: values['source-thread'] } : {}),
    };
    const { data: row } = await call(ctx, ctx.client.startMemberRun({ path: { did }, body }));
    if (values.detach) return print(ctx, row, () => `${row.thread}\n`);
    await watchRun(ctx, { thread: row.thread, actor: row.actor, after: 0, view: new RunView(), cancelOnInterrupt: true });
  },
});
