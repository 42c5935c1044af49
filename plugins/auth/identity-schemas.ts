/** Response schemas of the grant, invite, member, self and re-credential routes. */
import { Type, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Str = () => Type.String();

export const CaveatsSchema = Type.Object(
  {
    max_depth: Type.Optional(Type.Integer({ minimum: 0, maximum: 64, description: 'Delegation hops allowed below the grant; 0: it may issue no children.' })),
    max_fanout: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Direct child grants it may issue; only the first so many (in log order) are honoured.' })),
    budget: Type.Optional(Type.Number({ minimum: 0, description: 'Spend ceiling (USD) for work under the grant.' })),
  },
  { additionalProperties: false, $id: 'GrantCaveats' },
);

export const GrantSchema = Type.Object(
  {
    object: Type.Literal('grant'),
    grant_id: Str(),
    iss: Str(),
    aud: Str(),
    scopes: Type.Array(Str()),
    caveats: Type.Record(Type.String(), Type.Number()),
    effective_caveats: Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()])),
    expires_at: Str(),
    effective_expires_at: Str(),
    chain: Type.Array(Str()),
    depth: Type.Integer(),
    label: Nullable(Str()),
    standing: Type.Union([Type.Literal('in_force'), Type.Literal('revoked'), Type.Literal('expired'), Type.Literal('not_in_force')]),
    reason: Nullable(Str()),
    revoked_at: Nullable(Str()),
    note: Nullable(Str()),
    children: Type.Integer(),
    created_at: Str(),
    token: Type.Optional(Nullable(Str())),
    sa_id: Type.Optional(Nullable(Str())),
  },
  { $id: 'Grant' },
);

export const RevocationSummarySchema = Type.Object(
  {
    object: Type.Literal('grant_revocation'),
    grant_id: Str(),
    standing: Type.Literal('revoked'),
    revoked_at: Nullable(Str()),
    note: Nullable(Str()),
    grants_revoked: Type.Integer({ description: 'The grant and its descendants, now out of force.' }),
    credentials_revoked: Type.Integer({ description: 'Credentials parented to any of them.' }),
  },
  { $id: 'GrantRevocation' },
);

export const InviteSchema = Type.Object(
  {
    object: Type.Literal('invite'),
    invite_id: Str(),
    invite_token: Type.Optional(Str()),
    state: Type.Union(['active', 'redeemed', 'exhausted', 'revoked', 'expired'].map((s) => Type.Literal(s))),
    issued_by: Nullable(Str()),
    created_at: Nullable(Str()),
    expires_at: Str(),
    max_uses: Type.Integer(),
    uses: Type.Integer(),
    uses_remaining: Type.Integer(),
    membership: Type.Object({ preset: Nullable(Str()), scopes: Type.Array(Str()), label: Nullable(Str()), grant_ttl_seconds: Type.Integer() }),
    note: Nullable(Str()),
    revoked_at: Nullable(Str()),
    redeem: Type.Object({ method: Type.Literal('POST'), path: Type.Literal('/v1/invites/redeem') }),
  },
  { $id: 'Invite' },
);

export const MemberSchema = Type.Object(
  {
    object: Type.Literal('member'),
    label: Str(),
    did: Str(),
    sa_id: Nullable(Str()),
    grant_id: Str(),
    scopes: Type.Array(Str()),
    state: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired'), Type.Literal('not_in_force')]),
    via: Type.Union([Type.Literal('invite'), Type.Literal('adopt')]),
    created_at: Str(),
    expires_at: Str(),
    revoked_at: Nullable(Str()),
    note: Nullable(Str()),
  },
  { $id: 'Member' },
);

export const MembershipIssuedSchema = Type.Object(
  {
    object: Type.Literal('membership'),
    label: Str(),
    principal: Str(),
    sa_id: Nullable(Str()),
    grant_id: Str(),
    scopes: Type.Array(Str()),
    grant_expires_at: Str(),
    token: Nullable(Str()),
    expires_at: Nullable(Str()),
    renewed: Type.Boolean(),
  },
  { $id: 'MembershipIssued' },
);

export const MemberRevokedSchema = Type.Intersect([MemberSchema, Type.Object({ grants_revoked: Type.Integer(), credentials_revoked: Type.Integer() })], { $id: 'MemberRevoked' });
