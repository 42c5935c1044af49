import { Type } from 'typebox';
import { ConfigTopicsToken } from '../../../core/engine/config-topics.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { ENGINE_CONFIG_FOLD, type EngineConfig } from '../../../core/folds/config/config-fold.js';
import { defineRoute } from '../../../core/plugin/route.js';

export const getConfigTopic = defineRoute({
  operationId: 'getConfigTopic',
  method: 'GET',
  path: '/v1/config/{topic}',
  summary: 'One configuration topic in force',
  description:
    'topic is a registered configuration topic (GET /v1/config/topics lists them with their owners; kebab-case accepted), or `warnings`. ' +
    'A single-valued topic answers its entry (null before any record); a keyed topic answers its entries by key.',
  tags: ['ledger'],
  auth: { scope: 'config:read' },
  request: { params: Type.Object({ topic: Type.String({ maxLength: 64 }) }) },
  responses: {
    200: {
      description: 'The topic value, with the configuration watermark.',
      schema: Type.Object(
        { object: Type.Literal('config'), topic: Type.String(), owner: Type.Union([Type.String(), Type.Null()]), watermark: Type.Integer(), version: Type.Integer(), value: Type.Unknown() },
        { $id: 'ConfigSlot' },
      ),
    },
  },
  errors: ['NOT_FOUND', 'INVALID_SHAPE'],
  inject: { reader: RecordReaderToken, topics: ConfigTopicsToken },
  handler: async ({ params, caller }, { reader, topics }) => {
    const answer = await reader.globalFold<EngineConfig>(caller, ENGINE_CONFIG_FOLD);
    const base = { object: 'config' as const, watermark: answer.watermark, version: answer.value.version };
    if (params.topic === 'topics') {
      const listed = topics.list().map(({ topic, owner }) => ({ topic: topic.topic, owner, keyed_by: topic.keyedBy, description: topic.description }));
      return { ...base, topic: 'topics', owner: null, value: listed };
    }
    if (params.topic === 'warnings') return { ...base, topic: 'warnings', owner: null, value: answer.value.warnings };
    const name = params.topic.replace(/-/g, '_');
    const topic = topics.get(name);
    if (!topic) {
      const known = topics.list().map(({ topic }) => topic.topic);
      throw new LoomError('NOT_FOUND', `no configuration topic ${JSON.stringify(params.topic)} is registered (topics: ${[...known, 'topics', 'warnings'].join(', ')})`);
    }
    return { ...base, topic: topic.topic, owner: topics.ownerOf(name) ?? null, value: answer.value.topics[topic.topic] ?? null };
  },
});
