/** A service account as the API shows it. */
import type { CredentialService } from './credential-service.js';
import type { ServiceAccount } from './credentials-fold.js';

export function serviceAccountView(account: ServiceAccount, credentials: CredentialService, apiKey: string | null = null) {
  return {
    object: 'service_account' as const,
    id: account.id,
    service_account_id: account.id,
    name: account.display_name,
    display_name: account.display_name,
    did: account.did,
    api_key: apiKey,
    active: account.active,
    created_at: account.created_at,
    revoked_at: account.revoked_at,
    scopes: [...account.scopes],
    actors: [...account.actors],
    namespace: account.namespace,
    live_tokens: credentials.tokensOf(account.id).filter((t) => !t.revoked).length,
  };
}

/** The DID an operation was asked by, recorded as `by`. */
export function askedBy(caller: { principal: string | null; actor: string | null }): string | null {
  return caller.actor ?? caller.principal;
}
