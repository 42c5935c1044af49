/** A service account as the API shows it. */
import type { CredentialService } from './credential-service.js';
import type { ServiceAccount } from './credentials-fold.js';

type AccountState = 'active' | 'revoked' | 'grant_revoked' | 'grant_expired' | 'expired';

/**
 * What a bearer of the account would meet now, with the checks the bearer
 * authenticator makes in its order (the account, the token, its grant), so
 * the list never shows a revoked member's account as active with live tokens.
 */
function accountState(account: ServiceAccount, credentials: CredentialService, now: number): { state: AccountState; live: number } {
  const tokens = credentials.tokensOf(account.id).filter((t) => !t.revoked);
  const grants = credentials.state().grants;
  const standings = tokens.map((t): AccountState => {
    if (t.grant_id !== null) {
      const standing = grants.standing(t.grant_id, now);
      if (standing === 'expired') return 'grant_expired';
      if (standing !== 'in_force') return 'grant_revoked';
    }
    return t.expires_at !== null && !(Date.parse(t.expires_at) > now) ? 'expired' : 'active';
  });
  const live = standings.filter((s) => s === 'active').length;
  if (!account.active) return { state: 'revoked', live: 0 };
  // An account without tokens is usable once one is minted; one whose tokens are all dead says why (the newest's reason).
  if (live > 0 || standings.length === 0) return { state: 'active', live };
  return { state: standings[standings.length - 1]!, live: 0 };
}

export function serviceAccountView(account: ServiceAccount, credentials: CredentialService, apiKey: string | null = null, now: number = Date.now()) {
  const { state, live } = accountState(account, credentials, now);
  return {
    object: 'service_account' as const,
    id: account.id,
    service_account_id: account.id,
    name: account.display_name,
    display_name: account.display_name,
    did: account.did,
    api_key: apiKey,
    active: state === 'active',
    state,
    created_at: account.created_at,
    revoked_at: account.revoked_at,
    scopes: [...account.scopes],
    actors: [...account.actors],
    namespace: account.namespace,
    live_tokens: live,
  };
}

/** The DID an operation was asked by, recorded as `by`. */
export function askedBy(caller: { principal: string | null; actor: string | null }): string | null {
  return caller.actor ?? caller.principal;
}
