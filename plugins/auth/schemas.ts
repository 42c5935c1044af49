/** Request and response schemas of the auth plugin's routes. */
import { Type } from 'typebox';

export const ScopeList = Type.Array(Type.String({ maxLength: 300, description: 'A scope of the closed enum (spec §5.2) or a wire grain (thread:<id>:read|write, namespace:<ns>:read|write).' }), {
  maxItems: 64,
});

export const ActorList = Type.Array(Type.String({ minLength: 1, maxLength: 512, description: 'A DID, `*`, or a DID prefix ending in `*`.' }), { maxItems: 256 });

export const ServiceAccountSchema = Type.Object(
  {
    object: Type.Literal('service_account'),
    id: Type.String(),
    service_account_id: Type.String(),
    name: Type.String(),
    display_name: Type.String(),
    did: Type.String(),
    api_key: Type.Union([Type.String(), Type.Null()], { description: 'The plaintext bearer: only in the creation and rotation responses, null everywhere else.' }),
    active: Type.Boolean({ description: 'Whether a bearer of this account can authenticate now: `state` is `active`.' }),
    state: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('grant_revoked'), Type.Literal('grant_expired'), Type.Literal('expired')], {
      description:
        '`active`: usable (or with no token yet); `revoked`: the account was revoked; `grant_revoked` / `grant_expired`: every unrevoked token hangs from a grant no longer in force (a revoked member, a revoked or expired delegation); `expired`: every unrevoked token is past its expiry.',
    }),
    created_at: Type.Union([Type.String(), Type.Null()]),
    revoked_at: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String()),
    actors: Type.Array(Type.String(), { description: 'DIDs this account may write as, besides its own.' }),
    namespace: Type.String(),
    live_tokens: Type.Integer({ description: 'Tokens that authenticate now: not revoked, not expired, their grant (if any) in force.' }),
  },
  { $id: 'ServiceAccount' },
);

export const ServiceAccountList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ServiceAccountSchema) }, { $id: 'ServiceAccountList' });
