import { Type } from 'typebox';
import { Reply } from '../../../core/plugin/reply.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { accountInput } from '../account-input.js';
import { ENV_TAG_PATTERN } from '../bearer-token.js';
import { CredentialServiceToken } from '../credential-service.js';
import { AuthOptionsToken } from '../config.js';
import { ActorList, ScopeList, ServiceAccountSchema } from '../schemas.js';
import { askedBy, serviceAccountView } from '../service-account-view.js';

export const createServiceAccount = defineRoute({
  operationId: 'createServiceAccount',
  method: 'POST',
  path: '/v1/service-accounts',
  summary: 'Create a service account and its first token',
  description:
    'scopes default to the contributor preset (records:read, records:write); actors (DIDs it may write as besides its own) default to any DID for an admin account ' +
    'and to none for others. The plaintext api_key is in this response only.',
  tags: ['auth'],
  auth: { scope: 'admin' },
  request: {
    body: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        scopes: Type.Optional(ScopeList),
        actors: Type.Optional(ActorList),
        namespace: Type.Optional(Type.String({ maxLength: 256 })),
        env_tag: Type.Optional(Type.String({ pattern: ENV_TAG_PATTERN.source })),
        expires_at: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601; the token fails with 401 from then on. Default: no expiry.' })),
      },
      { additionalProperties: false },
    ),
  },
  responses: { 201: { description: 'The account, with its plaintext api_key.', schema: ServiceAccountSchema } },
  errors: ['INVALID_SHAPE', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
  inject: { credentials: CredentialServiceToken, options: AuthOptionsToken },
  handler: async ({ body, caller }, { credentials, options }) => {
    const { scopes, actors, namespace } = accountInput(body);
    if (body.expires_at !== undefined && !(Date.parse(body.expires_at) > Date.now())) throw new LoomError('INVALID_SHAPE', 'expires_at: must be an ISO 8601 time in the future');
    const account = await credentials.createServiceAccount({ displayName: body.name, scopes, actors, namespace, by: askedBy(caller) });
    const { bearer } = await credentials.mintToken({
      serviceAccountId: account.id,
      envTag: body.env_tag ?? options.envTag,
      tokenId: null,
      expiresAt: body.expires_at ? new Date(body.expires_at).toISOString() : null,
      by: askedBy(caller),
    });
    return Reply.json(201, serviceAccountView(credentials.account(account.id)!, credentials, bearer), { location: `/v1/service-accounts/${account.id}` });
  },
});
