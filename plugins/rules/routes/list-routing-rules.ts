import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { RoutingRulesToken } from '../routing-rules.js';

export const RoutingRuleSchema = Type.Object(
  {
    name: Type.String(),
    expression: Type.String(),
    target: Type.String(),
    priority: Type.Integer(),
    goal: Type.Union([Type.String(), Type.Null()]),
    enabled: Type.Boolean(),
    description: Type.Union([Type.String(), Type.Null()]),
    record_id: Type.String({ description: 'The configuration record in force.' }),
    sequence: Type.Integer(),
  },
  { $id: 'RoutingRule' },
);

export const listRoutingRules = defineRoute({
  operationId: 'listRoutingRules',
  method: 'GET',
  path: '/v1/config/rules',
  summary: 'The routing rules in force, in evaluation order (priority, then name)',
  description: 'Write them with POST /v1/config/routing_rule {name, expression, target, priority, goal?}; {name, remove: true} retires one.',
  tags: ['engine'],
  auth: { scope: 'config:read' },
  responses: { 200: { description: 'Evaluation order: first match wins.', schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(RoutingRuleSchema) }, { $id: 'RoutingRuleList' }) } },
  errors: [],
  inject: { routingRules: RoutingRulesToken },
  handler: (_input, { routingRules }) => ({
    object: 'list' as const,
    data: routingRules.all()
      .sort((a, b) => Number(b.enabled) - Number(a.enabled) || b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((rule) => ({ ...rule })),
  }),
});
