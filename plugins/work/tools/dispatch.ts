/**
 * `dispatch`: what POST /v1/dispatch does (the rules plugin's
 * manualDispatch), as the member: the DO written as it on the derived
 * dispatch thread, then queued for delivery to the target's adapter.
 * Registered only when the rules plugin is loaded.
 */
import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { manualDispatch, type ManualDispatchDeps } from '../../rules/index.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';

export function dispatchTool(deps: ManualDispatchDeps): ToolDescriptor {
  return defineTool({
    name: 'dispatch',
    description:
      'Hands work to another actor (a person, agent or member, by DID): writes a dispatch (a DO record carrying the goal and budget) as you, on a dispatch thread derived from the parent thread, and queues its delivery. ' +
      'thread_id is the thread the work belongs to (default: this run), and must hold records you can read. The target answers on the dispatch thread: watch it with read_thread or fold_thread. ' +
      'Answers {id, thread, target, adapter, status, dispatched_at, budget}. Default budget: the instance default cost and duration.',
    inputSchema: Type.Object(
      {
        actor_did: Type.String({ minLength: 1, maxLength: 512, description: 'The target actor DID.' }),
        goal: Type.String({ minLength: 1, maxLength: 2000, description: 'What the target should do, self-contained.' }),
        thread_id: Type.Optional(Type.String({ minLength: 1, maxLength: 80, description: 'The parent thread; default the run thread (required outside a run).' })),
        budget: Type.Optional(
          Type.Object(
            {
              max_cost_usd: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
              max_duration_secs: Type.Optional(Type.Integer({ minimum: 1, maximum: 7 * 86_400 })),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
    // The scope POST /v1/dispatch declares.
    direct: true,
    scope: 'records:write',
    readOnly: false,
    destructive: false,
    // A dispatch to a member starts a run of it (plugins/work/dispatch-adapter.ts): a model call.
    callsModel: true,
    async run(input, { caller, runThread }) {
      const thread = input.thread_id ?? runThread;
      if (thread === undefined) throw new LoomError('INVALID_SHAPE', 'dispatch input /thread_id is required outside a work loop run');
      const answer = await manualDispatch(deps, caller, { ...input, thread_id: thread });
      return { id: answer.id, thread: answer.thread, target: answer.target, adapter: answer.adapter, status: answer.status, dispatched_at: answer.dispatched_at, budget: answer.budget };
    },
  });
}
