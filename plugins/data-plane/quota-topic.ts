/**
 * `data_quota` (configuration topic owned by the data plane, keyed by
 * namespace): `{namespace_id, quota_bytes}` caps the distinct content bytes a
 * namespace's files hold plus the declared size of its open uploads;
 * `quota_bytes: null` (or `{namespace_id, remove: true}`) lifts the cap.
 * Without an entry the plugin's `default_quota_bytes` applies (none by default).
 */
import { Type } from 'typebox';
import { defineConfigTopic } from '../../core/folds/config/config-topic.js';

export const dataQuotaTopic = defineConfigTopic({
  topic: 'data_quota',
  description: 'Storage quota of a namespace in the data plane: {namespace_id, quota_bytes} (null: unlimited); {namespace_id, remove: true} returns to the default.',
  keyedBy: 'namespace_id',
  schema: Type.Object(
    {
      namespace_id: Type.String({ minLength: 1, maxLength: 256 }),
      quota_bytes: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
      remove: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  normalise: (fields) => (fields.remove ? null : { namespace_id: fields.namespace_id, quota_bytes: fields.quota_bytes ?? null }),
});
