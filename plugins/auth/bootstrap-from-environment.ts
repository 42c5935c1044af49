/**
 * The unattended alternative to `loom bootstrap` (prior art: SPL_BOOTSTRAP_TOKEN):
 * at start, when no service account exists in the default namespace, a
 * configured secret mints the admin account `sa-bootstrap-env` whose bearer
 * is `loom_<env>_sa-bootstrap-env_<secret>`. Only the secret's hash is
 * written. A malformed secret is reported and ignored; the server still starts.
 */
import type { Logger } from '../../core/plugin/logger.js';
import { SECRET_PATTERN, tokenIdOf } from './bearer-token.js';
import type { CredentialService } from './credential-service.js';

export const ENV_BOOTSTRAP_ACCOUNT = 'sa-bootstrap-env';

export async function bootstrapFromEnvironment(credentials: CredentialService, secret: string, envTag: string, log: Logger): Promise<void> {
  if ([...credentials.state().accounts.values()].some((account) => account.namespace === 'default')) return;
  if (!SECRET_PATTERN.test(secret)) {
    log.log('warn', 'bootstrap secret ignored: it must be 16-256 characters of A-Z a-z 0-9 . ~ - (no underscore or whitespace)');
    return;
  }
  const account = await credentials.createServiceAccount({ id: ENV_BOOTSTRAP_ACCOUNT, displayName: 'bootstrap (environment)', scopes: ['admin'], actors: ['*'], namespace: 'default', by: null });
  await credentials.mintToken({ serviceAccountId: account.id, envTag, tokenId: tokenIdOf(secret), by: null });
  log.log('info', 'bootstrap admin account created from the environment', { service_account_id: account.id });
}
