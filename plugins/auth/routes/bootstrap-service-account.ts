import { Type } from 'typebox';
import { LoomError } from '../../../core/errors/loom-error.js';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { ENV_TAG_PATTERN, SERVICE_ACCOUNT_ID_PATTERN } from '../bearer-token.js';
import { CredentialServiceToken } from '../credential-service.js';
import { accountInput } from '../account-input.js';
import { ActorList, ScopeList } from '../schemas.js';

export const bootstrapServiceAccount = defineRoute({
  operationId: 'bootstrapServiceAccount',
  method: 'POST',
  path: '/v1/bootstrap/service-account',
  summary: 'Create the first service account of a namespace',
  description:
    'Open only while the namespace has no service account (then 409 BOOTSTRAP_CLOSED). The client generates the account id and a secret, ' +
    'and sends only token_id = SHA-256 (hex) of the secret, so the plaintext never travels; its bearer is then loom_<env_tag>_<service_account_id>_<secret>. ' +
    'Secrets are 16–256 characters of A–Z a–z 0–9 . ~ - (no underscore).',
  tags: ['auth'],
  auth: 'none',
  request: {
    body: Type.Object(
      {
        service_account_id: Type.String({ pattern: SERVICE_ACCOUNT_ID_PATTERN.source, description: 'Client-generated, e.g. sa_admin.' }),
        display_name: Type.String({ minLength: 1, maxLength: 200 }),
        scopes: Type.Optional(ScopeList),
        namespace: Type.Optional(Type.String({ maxLength: 256, default: 'default' })),
        actors: Type.Optional(ActorList),
        with_token: Type.Object(
          {
            token_id: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (lowercase hex) of the client-held secret.' }),
            env_tag: Type.Optional(Type.String({ pattern: ENV_TAG_PATTERN.source, default: 'prod' })),
            created_at: Type.Optional(Type.String({ maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  responses: {
    201: {
      description: 'The account and its first token exist.',
      schema: Type.Object(
        {
          object: Type.Literal('bootstrap_result'),
          service_account_id: Type.String(),
          sa_record_id: Type.String(),
          namespace: Type.String(),
          token_id: Type.String(),
          token_record_id: Type.String(),
        },
        { $id: 'BootstrapResult' },
      ),
    },
  },
  errors: ['INVALID_SHAPE', 'BOOTSTRAP_CLOSED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { credentials: CredentialServiceToken },
  handler: async ({ body }, { credentials }) => {
    // The first account of a namespace is its admin unless the client asks for less.
    const { scopes, actors, namespace } = accountInput({ scopes: body.scopes ?? ['admin'], actors: body.actors, namespace: body.namespace });
    if (body.with_token.created_at !== undefined && Number.isNaN(Date.parse(body.with_token.created_at))) {
      throw new LoomError('INVALID_SHAPE', 'with_token.created_at: must be an ISO 8601 timestamp');
    }
    const account = await credentials.createServiceAccount(
      { id: body.service_account_id, displayName: body.display_name, scopes, actors, namespace, by: null },
      (state) => {
        for (const existing of state.accounts.values()) {
          if (existing.namespace === namespace) throw new LoomError('BOOTSTRAP_CLOSED', `namespace ${namespace} already has a service account; ask its admin for a token (POST /v1/service-accounts)`);
        }
      },
    );
    const { entry } = await credentials.mintToken({
      serviceAccountId: account.id,
      envTag: body.with_token.env_tag ?? 'prod',
      tokenId: body.with_token.token_id,
      createdAt: body.with_token.created_at,
      by: null,
    });
    return Reply.json(201, {
      object: 'bootstrap_result' as const,
      service_account_id: account.id,
      sa_record_id: account.record_id,
      namespace,
      token_id: entry.token_id,
      token_record_id: entry.record_id,
    });
  },
});
