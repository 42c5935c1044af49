/**
 * The auth plugin: service accounts and bearer tokens as records on a thread
 * of its own, and on the framework's extension points the Authenticator,
 * four ingest gates (credentials thread, configuration authority, write
 * grains, actor claim), two read policies (read grains, sealed credentials),
 * the CORS policy and the auth_required / auth_cors_origins topics.
 */
import { Authenticator } from '../../core/access/authenticator.js';
import { CorsPolicy } from '../../core/access/cors-policy.js';
import { bindValue, resolve } from '../../core/di/token.js';
import { FoldEngineToken } from '../../core/engine/fold-engine.js';
import { IngestorToken } from '../../core/engine/ingest.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { authCorsPolicy } from './auth-cors-policy.js';
import { BearerAuthenticator } from './bearer-authenticator.js';
import { bootstrapFromEnvironment } from './bootstrap-from-environment.js';
import { AuthOptions, AuthOptionsToken } from './config.js';
import { CredentialService, CredentialServiceToken } from './credential-service.js';
import { credentialsFold } from './credentials-fold.js';
import { AUTH_GATES } from './ingest-gates.js';
import { AUTH_READ_POLICIES } from './read-policies.js';
import { bootstrapServiceAccount } from './routes/bootstrap-service-account.js';
import { createServiceAccount } from './routes/create-service-account.js';
import { getIdentity } from './routes/get-identity.js';
import { listScopePresets } from './routes/list-scope-presets.js';
import { listServiceAccounts } from './routes/list-service-accounts.js';
import { revokeServiceAccount } from './routes/revoke-service-account.js';
import { rotateServiceAccountKey } from './routes/rotate-service-account-key.js';
import { authCorsOriginsTopic, authRequiredTopic } from './topics.js';

export { AuthOptions, AuthOptionsToken } from './config.js';
export { AUTH_THREAD } from './auth-thread.js';
export { authRequiredTopic, authCorsOriginsTopic } from './topics.js';
export { parseBearer, formatBearer, mintSecret, tokenIdOf, SECRET_PATTERN } from './bearer-token.js';
export { identityOf, IdentitySchema } from './identity.js';
export { SCOPE_PRESETS } from './scope-presets.js';

export const AUTH_ROUTES = [bootstrapServiceAccount, listServiceAccounts, createServiceAccount, revokeServiceAccount, rotateServiceAccountKey, listScopePresets, getIdentity] as const;

export const authPlugin = definePlugin({
  name: 'auth',
  version: '1.0.0',
  dependencies: ['ledger'],
  options: AuthOptions,
  register(scope, options) {
    bindValue(scope.container, AuthOptionsToken, options);
    const credentials = new CredentialService(resolve(scope.container, IngestorToken), resolve(scope.container, FoldEngineToken));
    bindValue(scope.container, CredentialServiceToken, credentials);
    const config = resolve(scope.container, Config);
    const authenticator = new BearerAuthenticator(credentials, config, options.required);
    scope.configTopic(authRequiredTopic);
    scope.configTopic(authCorsOriginsTopic);
    scope.fold(credentialsFold);
    scope.expose(Authenticator, authenticator);
    scope.expose(CorsPolicy, authCorsPolicy(authenticator, config));
    for (const gate of AUTH_GATES) scope.ingestGate(gate);
    for (const policy of AUTH_READ_POLICIES) scope.readPolicy(policy);
    for (const route of AUTH_ROUTES) scope.route(route);
    scope.capability('auth.bearer', true);
    scope.capability('auth.service_accounts', true);
    scope.capability('auth.grains', true);
    let announced = -1;
    const announce = () => {
      const required = authenticator.required();
      if (required === (announced === 1)) return;
      announced = required ? 1 : 0;
      scope.log.log('info', required ? 'auth enforcement on: requests need a bearer token' : 'auth enforcement off: requests without a bearer run with every scope', { auth_required: required });
    };
    scope.onStart(async () => {
      if (options.bootstrapSecret !== undefined) await bootstrapFromEnvironment(credentials, options.bootstrapSecret, options.envTag, scope.log);
      announce();
      const stop = config.watch(authRequiredTopic, announce);
      scope.onStop(stop);
    });
  },
});
