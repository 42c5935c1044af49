/**
 * `loom work preview` and `loom work loop`: a work loop of the caller's own
 * (spec §4.8): the caller is the run's actor and its tools act with the
 * caller's scopes, under the narrowest of its tier's caps and the request.
 * preview (POST /v1/work/loop/preview) answers what a start would get and
 * writes nothing; loop (POST /v1/work/loop) starts one and shows it live
 * as `loom run` does.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import type { PreviewWorkLoopResponse, StartWorkLoopData, StartWorkLoopResponse } from '../../../sdk/index.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print } from '../../kit/context.js';
import { integerOption } from '../../kit/options.js';
import { RUN_EXIT_HELP } from './run-exit-codes.js';
import { RunView } from './run-view.js';
import { watchRun } from './watch-run.js';

export const WORK_USAGE = `loom work preview ["<goal>"] [--max-turns N] [--token-budget N] [--wall-clock-secs N] [--model M]
            [--tools a,b] [--workspace NS] [--url …] [--token …] [--json]
loom work loop "<goal>" [the options of preview] [--detach] [--url …] [--token …] [--json]
  A work loop of your own: you are the run's actor and its tools act with your scopes.
  preview: your tier and its caps, this request's ceilings, usage today, the most it could spend, the
    tools it would get, and whether a start would be refused now. Writes nothing.
  loop: starts one and shows it live as loom run does (Ctrl-C once cancels, twice quits; --json is
    the start answer, one line per record, then the run row; --detach prints the thread).
  ${RUN_EXIT_HELP}`;

const LOOP_OPTIONS = {
  ...CLIENT_OPTIONS,
  'max-turns': { type: 'string', value: 'N', help: 'turns at most (narrowed by your tier’s)' },
  'token-budget': { type: 'string', value: 'N', help: 'tokens at most, in and out (narrowed by your tier’s)' },
  'wall-clock-secs': { type: 'string', value: 'N', help: 'seconds at most (narrowed by your tier’s)' },
  model: { type: 'string', value: 'model', help: 'a catalog model (default: the first whose provider is configured)' },
  tools: { type: 'string', value: 'a,b', help: 'tools from the requestable grant (default: the default grant)' },
  workspace: { type: 'string', value: 'namespace', help: 'the namespace the loop’s thread is in' },
} as const;

type LoopValues = { [K in keyof typeof LOOP_OPTIONS]?: string };

function loopBody(goal: string, values: LoopValues): StartWorkLoopData['body'] {
  if (goal.trim() === '') throw new CliError('the goal is empty');
  const maxTurns = integerOption('max-turns', values['max-turns'], 1);
  const tokenBudget = integerOption('token-budget', values['token-budget'], 1);
  const wallClock = integerOption('wall-clock-secs', values['wall-clock-secs'], 1);
  const tools = parseListOption(values.tools);
  return {
    goal,
    ...(maxTurns !== undefined ? { max_turns: maxTurns } : {}),
    ...(tokenBudget !== undefined ? { token_budget: tokenBudget } : {}),
    ...(wallClock !== undefined ? { wall_clock_secs: wallClock } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(values.workspace !== undefined ? { workspace: values.workspace } : {}),
  };
}

const orNone = (value: number | null, unit = '') => (value === null ? 'none' : `${value}${unit}`);
const usd = (value: number | null) => (value === null ? 'none' : `$${value.toFixed(4)}`);
const names = (list: readonly string[]) => (list.length === 0 ? '-' : list.join(', '));

export function previewText(p: PreviewWorkLoopResponse): string {
  const c = p.caps;
  const e = p.effective_config;
  const facts: Array<[string, string]> = [
    ['tier', p.tier],
    ['caps', `${orNone(c.max_turns)} turns, ${orNone(c.token_budget)} tokens, ${orNone(c.wall_clock_secs, ' s')}; daily ${usd(c.daily_cost_cap_usd)}, ${orNone(c.daily_loop_cap)} loops`],
    ['this loop', `${orNone(e.max_turns)} turns, ${orNone(e.token_budget)} tokens, ${orNone(e.wall_clock_secs, ' s')}`],
    ['model', p.model === null ? '- (none configured)' : `${p.model}, at most ${usd(p.estimated_cost_usd)}`],
    ['tools', `default ${names(p.tool_grant.default)}; may ask for ${names(p.tool_grant.requestable)}; forbidden ${names(e.forbidden_tools)}`],
    ['today', `${p.usage_today.loop_count} loops, $${p.usage_today.cost_usd.toFixed(4)}`],
    ['a start', p.would_be_denied ? `would be refused now: ${p.denial_reason}` : 'would be admitted now'],
  ];
  return facts.map(([label, value]) => `${label.padEnd(9)}  ${value}\n`).join('');
}

function startedText(s: StartWorkLoopResponse): string {
  const e = s.effective_config;
  return `work loop ${s.thread}: tier ${s.tier}, model ${s.model}, tools ${names(s.tools)}; ${orNone(e.max_turns)} turns, ${orNone(e.token_budget)} tokens, ${orNone(e.wall_clock_secs, ' s')}\n`;
}

export const work = defineCommand({
  name: 'work',
  summary: 'work loops of your own: preview what one would get, or run one live',
  usage: WORK_USAGE,
  json: true,
  subcommands: {
    preview: subcommand({
      summary: 'what a work loop would get now (records:read); writes nothing',
      args: ['["<goal>"]'],
      options: LOOP_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length > 1) throw new CliError(`loom work preview takes at most one goal\n${WORK_USAGE}`);
        // The preview does not depend on the goal, but the request shape has one.
        const body = loopBody(positionals[0] ?? 'preview', values);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.previewWorkLoop({ body }));
        print(ctx, data, () => previewText(data));
      },
    }),
    loop: subcommand({
      summary: 'start a work loop of your own and follow it live (records:write)',
      args: ['"<goal>"'],
      options: { ...LOOP_OPTIONS, detach: { type: 'boolean', default: false, help: 'print the thread and exit; the loop goes on' } },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom work loop takes one goal\n${WORK_USAGE}`);
        const body = loopBody(positionals[0]!, values);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.startWorkLoop({ body }));
        if (values.detach) return print(ctx, data, () => `${data.thread}\n`);
        process.stdout.write(ctx.json ? JSON.stringify(data) + '\n' : startedText(data));
        await watchRun(ctx, { thread: data.thread, actor: null, after: 0, view: new RunView(), cancelOnInterrupt: true });
      },
    }),
  },
});
