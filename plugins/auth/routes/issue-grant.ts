import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { grantRow } from '../grant-fold.js';
import { GrantServiceToken } from '../grant-service.js';
import { CredentialServiceToken } from '../credential-service.js';
import { CaveatsSchema, GrantSchema } from '../identity-schemas.js';
import { ScopeList } from '../schemas.js';

export const issueGrant = defineRoute({
  operationId: 'issueGrant',
  method: 'POST',
  path: '/v1/grants',
  summary: 'Issue a delegation grant',
  description:
    'Delegates part of a grant you hold (parent_grant_id, by default the grant your bearer is parented to) to an audience DID; an admin may also issue root grants. ' +
    'The child is never wider than its chain: scopes within the parent\'s, each caveat at most the chain\'s effective value (and carried wherever the chain carries it), ' +
    'at most max_fanout children per parent and max_depth hops below it, no later expiry than the chain, at most 64 hops (spec §5.4). Anything else is 422 GRANT_REFUSED, with the reason. ' +
    'expires_at (or ttl_seconds) defaults to the grant_lifetime topic\'s default_seconds and may not exceed its max_seconds. with_token mints the audience a bearer parented to the grant, shown once.',
  tags: ['auth'],
  auth: { scope: null },
  request: {
    body: Type.Object(
      {
        aud: Type.String({ minLength: 1, maxLength: 2048, description: 'The DID the grant is for.' }),
        scopes: ScopeList,
        caveats: Type.Optional(CaveatsSchema),
        expires_at: Type.Optional(Type.String({ maxLength: 64 })),
        ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 * 366 * 86400 })),
        parent_grant_id: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
        note: Type.Optional(Type.String({ maxLength: 280 })),
        with_token: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 201: { description: 'The grant, in force (and the audience\'s bearer when asked for).', schema: GrantSchema } },
  errors: ['INVALID_SHAPE', 'FORBIDDEN', 'NOT_FOUND', 'GRANT_REFUSED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { grants: GrantServiceToken, credentials: CredentialServiceToken },
  handler: async ({ body, caller }, { grants, credentials }) => {
    const { grant, bearer, serviceAccountId } = await grants.issue(caller, body);
    const row = grantRow(credentials.state().grants, grant, Date.now());
    return Reply.json(201, { object: 'grant' as const, ...row, ...(body.with_token ? { token: bearer, sa_id: serviceAccountId } : {}) });
  },
});
