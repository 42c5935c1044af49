import { Type } from 'typebox';
import { FoldEngineToken } from '../../../core/engine/fold-engine.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { CONFIG_TOPICS, type EngineConfig } from '../../../core/folds/config/config-topics.js';
import { defineRoute } from '../../../core/plugin/route.js';

/** URL names of configuration slots: `rules` is the spec's name for routing rules (§4.10). */
const SLOT_ALIASES: Record<string, keyof EngineConfig> = {
  rules: 'routing_rules',
  ...Object.fromEntries(Object.values(CONFIG_TOPICS).map((spec) => [spec.slot.replace(/_/g, '-'), spec.slot as keyof EngineConfig])),
  ...Object.fromEntries(Object.values(CONFIG_TOPICS).map((spec) => [spec.slot, spec.slot as keyof EngineConfig])),
  warnings: 'warnings',
};

export const getConfigTopic = defineRoute({
  operationId: 'getConfigTopic',
  method: 'GET',
  path: '/v1/config/{topic}',
  summary: 'One part of the configuration in force',
  description: `topic is a configuration slot: ${[...new Set(Object.values(SLOT_ALIASES))].join(', ')} (kebab-case accepted); \`rules\` gives the routing rules.`,
  tags: ['ledger'],
  auth: { scope: 'config:read' },
  request: { params: Type.Object({ topic: Type.String({ maxLength: 64 }) }) },
  responses: {
    200: {
      description: 'The slot value, with the configuration watermark.',
      schema: Type.Object({ object: Type.Literal('config'), topic: Type.String(), watermark: Type.Integer(), version: Type.Integer(), value: Type.Unknown() }, { $id: 'ConfigSlot' }),
    },
  },
  errors: ['NOT_FOUND', 'AUTH_REQUIRED', 'SCOPE_FORBIDDEN'],
  inject: { folds: FoldEngineToken },
  handler: ({ params }, { folds }) => {
    const slot = Object.prototype.hasOwnProperty.call(SLOT_ALIASES, params.topic) ? SLOT_ALIASES[params.topic] : undefined;
    if (!slot) throw new LoomError('NOT_FOUND', `no configuration topic ${JSON.stringify(params.topic)} (topics: ${Object.keys(SLOT_ALIASES).join(', ')})`);
    const answer = folds.global<EngineConfig>('engine_config');
    return { object: 'config' as const, topic: slot, watermark: answer.watermark, version: answer.value.version, value: answer.value[slot] };
  },
});
