/** Options of the auth plugin. */
import { Type, type Static } from 'typebox';
import { token } from '../../core/di/token.js';

export const AuthOptions = Type.Object(
  {
    /**
     * Whether a request without a credential is refused while no `auth_required`
     * configuration record exists; once one does, the latest record wins.
     * The reference server requires auth (spec §5.1). @default true
     */
    required: Type.Boolean({ default: true }),
    /** The `<env>` part of bearers this instance mints. @default 'prod' */
    envTag: Type.String({ pattern: '^[a-z0-9]{1,16}$', default: 'prod' }),
    /**
     * A secret to mint the first admin bearer from at start when no service
     * account exists yet (the reference server reads LOOM_BOOTSTRAP_TOKEN):
     * the account `sa-bootstrap-env`, bearer `loom_<env>_sa-bootstrap-env_<secret>`.
     */
    bootstrapSecret: Type.Optional(Type.String()),
    /**
     * The re-credential door's rate limit, per principal string and per client
     * address: `burst` attempts at once, then one every `refillMs` (spec §5.6
     * leaves the thresholds open; docs/decisions.md). @default {burst: 3, refillMs: 5000}
     */
    recredentialRate: Type.Object(
      { burst: Type.Integer({ minimum: 1, maximum: 1000, default: 3 }), refillMs: Type.Integer({ minimum: 1, maximum: 3_600_000, default: 5000 }) },
      { additionalProperties: false, default: { burst: 3, refillMs: 5000 } },
    ),
  },
  { additionalProperties: false },
);

export type AuthOptions = Static<typeof AuthOptions>;
export const AuthOptionsToken = token<AuthOptions>('auth.AuthOptions');
