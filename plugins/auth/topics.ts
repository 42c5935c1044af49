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

const DAY = 86_400;
/** Defaults while no grant_lifetime record exists (docs/decisions.md). */
export const GRANT_LIFETIME_DEFAULTS = { default_seconds: 180 * DAY, max_seconds: 366 * DAY, bearer_seconds: 30 * DAY } as const;

export const grantLifetimeTopic = defineConfigTopic({
  topic: 'grant_lifetime',
  description:
    'Lifetimes of delegation grants and of the bearers issued under them: default_seconds (180 days) when a grant names no expiry, max_seconds (366 days) the cap no new grant may exceed (at most 10 years), bearer_seconds (30 days) for member and re-credentialed bearers.',
  schema: Type.Object(
    {
      default_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 10 * 366 * DAY })),
      max_seconds: Type.Optional(Type.Integer({ minimum: 3600, maximum: 10 * 366 * DAY })),
      bearer_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 10 * 366 * DAY })),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'single',
});

export const passkeyRpTopic = defineConfigTopic({
  topic: 'passkey_rp',
  description:
    'The WebAuthn relying party this instance accepts passkeys for: rp_id (a registrable domain such as example.com, or localhost), rp_name, and the exact origins browsers sign for (https://app.example.com). Without it passkey binding answers 409 PASSKEY_NOT_ACCEPTED.',
  schema: Type.Object(
    {
      rp_id: Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$' }),
      rp_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      origins: Type.Array(Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^/\\s]+$' }), { minItems: 1, maxItems: 32 }),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'single',
});
