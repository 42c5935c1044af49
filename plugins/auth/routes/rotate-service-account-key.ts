import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { CredentialServiceToken } from '../credential-service.js';
import { AuthOptionsToken } from '../config.js';
import { askedBy } from '../service-account-view.js';

export const rotateServiceAccountKey = defineRoute({
  operationId: 'rotateServiceAccountKey',
  method: 'POST',
  path: '/v1/service-accounts/{id}/rotate-key',
  summary: 'Mint a new token, then revoke the previous ones',
  description: 'The new plaintext api_key is in this response only. A revoked account answers 409 SERVICE_ACCOUNT_REVOKED.',
  tags: ['auth'],
  auth: { scope: 'admin' },
  request: { params: Type.Object({ id: Type.String({ maxLength: 80 }) }) },
  responses: {
    200: {
      description: 'The new token.',
      schema: Type.Object({ object: Type.Literal('service_account_key'), id: Type.String(), api_key: Type.String() }, { $id: 'ServiceAccountKey' }),
    },
  },
  errors: ['NOT_FOUND', 'SERVICE_ACCOUNT_REVOKED'],
  inject: { credentials: CredentialServiceToken, options: AuthOptionsToken },
  handler: async ({ params, caller }, { credentials, options }) => {
    const account = credentials.account(params.id);
    const envTag = (account && credentials.tokensOf(account.id).at(-1)?.env_tag) ?? options.envTag;
    const { bearer } = await credentials.rotate(params.id, envTag, askedBy(caller));
    return { object: 'service_account_key' as const, id: params.id, api_key: bearer };
  },
});
