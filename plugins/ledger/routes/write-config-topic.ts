import { Type } from 'typebox';
import { ConfigTopicsToken } from '../../../core/engine/config-topics.js';
import { RecordWriterToken } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { checkConfigFields } from '../../../core/folds/config/config-fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import { TH_ENGINE_CONFIG } from '../../../core/records/reserved-threads.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { validationMessage } from '../../../core/server/validation-message.js';

export const writeConfigTopic = defineRoute({
  operationId: 'writeConfigTopic',
  method: 'POST',
  path: '/v1/config/{topic}',
  summary: 'Change one configuration topic',
  description:
    'Checks the fields against the topic registered by its plugin (400 naming the field; nothing written on refusal), then writes the LEARN record on ' +
    'th_engine_config as the caller. It applies on broadcast, before this answer. The body is the topic fields, e.g. {"enabled": true} for auth_required.',
  tags: ['ledger'],
  auth: { scope: 'config:write' },
  request: {
    params: Type.Object({ topic: Type.String({ maxLength: 64 }) }),
    body: Type.Record(Type.String(), Type.Unknown(), { description: 'The topic fields.' }),
  },
  bodyValidation: 'handler',
  responses: { 201: { description: 'The configuration record.', schema: RecordSchema } },
  errors: ['INVALID_SHAPE', 'NOT_FOUND', 'FORBIDDEN', 'DID_CLAIM_DENIED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { writer: RecordWriterToken, topics: ConfigTopicsToken },
  handler: async ({ params, body, caller }, { writer, topics }) => {
    const topic = topics.get(params.topic.replace(/-/g, '_'));
    if (!topic) throw new LoomError('NOT_FOUND', `no loaded plugin owns the configuration topic ${JSON.stringify(params.topic)}`);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new LoomError('INVALID_SHAPE', 'body: must be a JSON object of the topic fields');
    const fields = { ...(body as Record<string, unknown>) };
    for (const marker of ['topic', 'kind', '_v', 'namespace']) delete fields[marker];
    const checked = checkConfigFields(topic, fields);
    if (!checked.ok) {
      // The validator's own words never reach a client (docs/decisions.md): the field and what it accepts.
      const message = checked.schemaErrors ? validationMessage('body', checked.schemaErrors as never, topic.schema, fields) : checked.message;
      throw new LoomError('INVALID_SHAPE', `${topic.topic}: ${message}`);
    }
    const { stored } = await writer.appendAs(caller, { thread: TH_ENGINE_CONFIG, act: 'LEARN', body: { topic: topic.topic, ...fields } as JsonObject });
    return Reply.json(201, stored.record);
  },
});
