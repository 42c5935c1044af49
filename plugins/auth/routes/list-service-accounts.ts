import { defineRoute } from '../../../core/plugin/route.js';
import { CredentialServiceToken } from '../credential-service.js';
import { ServiceAccountList } from '../schemas.js';
import { serviceAccountView } from '../service-account-view.js';

export const listServiceAccounts = defineRoute({
  operationId: 'listServiceAccounts',
  method: 'GET',
  path: '/v1/service-accounts',
  summary: 'Every service account (api_key always null)',
  tags: ['auth'],
  auth: { scope: 'admin' },
  responses: { 200: { description: 'Accounts in creation order, revoked ones included.', schema: ServiceAccountList } },
  errors: [],
  inject: { credentials: CredentialServiceToken },
  handler: (_input, { credentials }) => ({ object: 'list' as const, data: credentials.accounts().map((account) => serviceAccountView(account, credentials)) }),
});
