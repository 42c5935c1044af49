import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { ClockToken } from '../../../core/engine/clock.js';
import { DispatchFoldToken } from '../dispatch/dispatch-fold.js';
import { CompiledTriggersToken } from '../triggers/compiled-triggers.js';
import { TriggerGovernorToken } from '../triggers/trigger-governor.js';

export const listTriggers = defineRoute({
  operationId: 'listTriggers',
  method: 'GET',
  path: '/v1/triggers',
  summary: 'The event triggers in force with their firing history and open firings',
  description: 'Write them with POST /v1/config/event_trigger; {name, remove: true} retires one, disabled: true pauses it. Malformed trigger records are listed by GET /v1/config/warnings.',
  tags: ['engine'],
  auth: { scope: 'config:read' },
  responses: {
    200: {
      description: 'By name.',
      schema: Type.Object(
        {
          object: Type.Literal('list'),
          data: Type.Array(
            Type.Object(
              {
                name: Type.String(),
                match: Type.Union([Type.String(), Type.Null()]),
                schedule: Type.Union([Type.String(), Type.Null()]),
                target: Type.String(),
                goal: Type.String(),
                budget: Type.Number(),
                timeout: Type.Integer(),
                cooldown: Type.Integer(),
                max_concurrent: Type.Integer(),
                disabled: Type.Boolean(),
                record_id: Type.String(),
                firings: Type.Integer(),
                last_fired_at: Type.Union([Type.String(), Type.Null()]),
                open_firings: Type.Integer(),
                next_run_at: Type.Union([Type.String(), Type.Null()], { description: 'Schedule triggers: the next occurrence (UTC).' }),
              },
              { $id: 'EventTriggerState' },
            ),
          ),
        },
        { $id: 'EventTriggerList' },
      ),
    },
  },
  errors: [],
  inject: { triggers: CompiledTriggersToken, dispatches: DispatchFoldToken, governor: TriggerGovernorToken, clock: ClockToken },
  handler: (_input, { triggers, dispatches, governor, clock }) => {
    const history = dispatches.state().triggers;
    const now = new Date(clock());
    return {
      object: 'list' as const,
      data: [...triggers.inForce()]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map(({ pattern: _pattern, cron, sequence: _sequence, ...trigger }) => ({
          ...trigger,
          firings: history.get(trigger.name)?.firings ?? 0,
          last_fired_at: history.get(trigger.name)?.last_fired_at ?? null,
          open_firings: governor.openFirings(trigger.name),
          next_run_at: cron?.nextRun(now)?.toISOString() ?? null,
        })),
    };
  },
});
