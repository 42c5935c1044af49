/**
 * `fan_out` and `join`: a run splits its goal into child runs and waits
 * for them (issue 33 tools). A child is a run like any other, of the same
 * member (or a member the member itself defined), on its own thread, with
 * the parent's thread as its source; its opening names its parent run, the
 * tree's root, its depth and the tool call that started it. The tier bounds
 * a tree (max_depth, max_children per run, max_tree_loops in all: prior art
 * §1.19), and a child's budget is carved out of what the parent has left.
 * A `fan_out` call interrupted by a restart and run again finds the
 * children its call already started instead of starting them twice.
 */
import { Type } from 'typebox';
import { SYSTEM } from '../../../core/access/caller.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonValue } from '../../../core/records/json.js';
import { tierCaps, tierOf, type RunEntry, type RunService, type ToolDescriptor } from '../../members/index.js';
import type { Config } from '../../../core/folds/config/config-topic.js';
import { defineTool } from '../tools/define-tool.js';
import type { RunEngine } from './run-engine.js';
import type { RunStarter } from './run-starter.js';

export interface FanOutDeps {
  readonly starter: RunStarter;
  readonly engine: RunEngine;
  readonly runs: RunService;
  readonly config: Config;
  /** Every run on record, oldest first. */
  readonly allRuns: () => readonly RunEntry[];
  readonly run: (thread: string) => RunEntry | undefined;
}

interface Lineage {
  readonly thread: string;
  readonly root: string;
  readonly depth: number;
  readonly call: string;
}

const lineageOf = (entry: RunEntry | undefined): Partial<Lineage> => (entry?.opening['parent_run'] ?? {}) as Partial<Lineage>;

export function fanOutTools(deps: FanOutDeps): ToolDescriptor[] {
  const fanOut = defineTool({
    name: 'fan_out',
    description:
      'Splits work into child runs that work in parallel, each on its own thread with your run as its source: one per task, of yourself unless a task names a member you defined. ' +
      'Answers {children: [{thread, member, goal}]}; then call join with their threads to wait for their outcomes. Your tier bounds how deep, how many per run and how many in one tree; each child gets budget_usd_each (default: an equal share of what your run has left).',
    inputSchema: Type.Object(
      {
        tasks: Type.Array(Type.Object({ goal: Type.String({ minLength: 1, maxLength: 5_000 }), member: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })) }, { additionalProperties: false }), { minItems: 1, maxItems: 10 }),
        budget_usd_each: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000 })),
      },
      { additionalProperties: false },
    ),
    scope: 'records:write',
    readOnly: false,
    destructive: false,
    async run(input, context) {
      const parent = deps.run(context.runThread);
      if (!parent) throw new LoomError('NOT_FOUND', 'this run is not on record');
      // A call run again after a restart: the children it already started, not new ones.
      const already = deps.allRuns().filter((entry) => lineageOf(entry).call === context.callRecord);
      if (already.length > 0) return { children: already.map((entry) => ({ thread: entry.thread, member: entry.actor, goal: String(entry.opening['goal'] ?? '') })), resumed: true };
      const lineage = lineageOf(parent);
      const depth = (lineage.depth ?? 0) + 1;
      const root = lineage.root ?? parent.thread;
      const caps = tierCaps(deps.config, tierOf(deps.config, parent.actor));
      const children = deps.allRuns().filter((entry) => lineageOf(entry).thread === parent.thread).length;
      const tree = deps.allRuns().filter((entry) => entry.thread === root || lineageOf(entry).root === root).length;
      if (caps.max_depth !== null && depth > caps.max_depth) throw new LoomError('ADMISSION_CEILING', `a child here would be at depth ${depth}; the tier allows ${caps.max_depth}`);
      if (caps.max_children !== null && children + input.tasks.length > caps.max_children) throw new LoomError('ADMISSION_CEILING', `this run has ${children} children; ${input.tasks.length} more would pass the tier's ${caps.max_children}`);
      if (caps.max_tree_loops !== null && tree + input.tasks.length > caps.max_tree_loops) throw new LoomError('ADMISSION_CEILING', `this tree holds ${tree} runs; ${input.tasks.length} more would pass the tier's ${caps.max_tree_loops}`);
      const ceiling = typeof parent.opening['ceiling_usd'] === 'number' ? (parent.opening['ceiling_usd'] as number) : null;
      const left = ceiling === null ? null : Math.max(0, ceiling - parent.turnCostUsd);
      const each = input.budget_usd_each ?? (left === null ? undefined : left / input.tasks.length);
      if (left !== null && each !== undefined && each * input.tasks.length > left + 1e-12) throw new LoomError('ADMISSION_CEILING', `the children's budgets (${input.tasks.length} × ${each}) pass what this run has left (${left.toFixed(6)} USD)`);
      const started: JsonValue[] = [];
      for (const task of input.tasks) {
        const member = task.member ?? parent.actor;
        const plan = await deps.starter.planMemberRun(context.caller, member, {
          goal: task.goal,
          source_thread: parent.thread,
          ...(each === undefined ? {} : { budget_usd: each }),
          tags: ['child'],
          parentRun: { thread: parent.thread, root, depth, call: context.callRecord },
        });
        await deps.starter.start(plan);
        started.push({ thread: plan.thread, member, goal: task.goal });
      }
      return { children: started, resumed: false };
    },
  });

  const join = defineTool({
    name: 'join',
    description:
      'Waits for runs (the children fan_out started) to end, up to wait_secs (default 120, at most 600), and answers each one\'s {thread, state, outcome, summary, turns, spent_usd}; runs still going are listed under `pending` (call join again to keep waiting).',
    inputSchema: Type.Object(
      {
        threads: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 20 }),
        wait_secs: Type.Optional(Type.Integer({ minimum: 0, maximum: 600 })),
      },
      { additionalProperties: false },
    ),
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, context) {
      // Its own children it reads whole; any other run through its own credential's view.
      const row = (thread: string) => deps.runs.row(lineageOf(deps.run(thread)).thread === context.runThread ? SYSTEM : context.caller, thread);
      for (const thread of input.threads) row(thread);
      const deadline = Date.now() + (input.wait_secs ?? 120) * 1000;
      const open = () => input.threads.filter((thread) => deps.run(thread)?.outcome === null);
      while (open().length > 0 && Date.now() < deadline && !context.signal.aborted) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, Math.min(500, Math.max(0, deadline - Date.now())));
          const off = deps.engine.onEnded(done);
          context.signal.addEventListener('abort', done, { once: true });
          function done() {
            clearTimeout(timer);
            off();
            context.signal.removeEventListener('abort', done);
            resolve();
          }
        });
      }
      const rows = input.threads.map(row);
      return {
        runs: rows.map((run) => ({ thread: run.thread, state: run.state, outcome: run.outcome, summary: run.summary, turns: run.turns, spent_usd: run.spent_usd })),
        pending: rows.filter((run) => run.state === 'running' || run.state === 'waiting_on_you').map((run) => run.thread),
      };
    },
  });
  return [fanOut, join];
}
