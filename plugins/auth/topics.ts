/** The configuration topics the auth plugin owns (spec §2.9). */
import { Type } from 'typebox';
import { defineConfigTopic } from '../../core/folds/config/config-topic.js';

export const authRequiredTopic = defineConfigTopic({
  topic: 'auth_required',
  description: 'When enabled, every non-exempt endpoint needs a bearer. Without a record, the auth plugin option `required` decides (true for the reference server).',
  schema: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
  keyedBy: 'single',
});

export const authCorsOriginsTopic = defineConfigTopic({
  topic: 'auth_cors_origins',
  description: 'Browser origins sent CORS headers while auth is required (exact origins such as https://app.example, or * for any); every origin while auth is off.',
  schema: Type.Object(
    { origins: Type.Array(Type.String({ minLength: 1, maxLength: 2048, pattern: '^(\\*|https?://[^/\\s]+)$' }), { maxItems: 256 }) },
    { additionalProperties: false },
  ),
  keyedBy: 'single',
});
