/**
 * The auth plugin's facts about a credential caller, carried in the
 * caller's plugin-owned `claims` (core knows nothing of service accounts or
 * grants). Written once by the bearer authenticator; read only through these
 * accessors, which answer null (or no chain) for a caller auth did not issue.
 */
import type { Caller } from '../../core/access/caller.js';

export const SERVICE_ACCOUNT_CLAIM = 'auth.service_account_id';
export const GRANT_CLAIM = 'auth.grant_id';
export const GRANT_CHAIN_CLAIM = 'auth.grant_chain';

/** The claims a credential of `account`, parented to `grant` (or none), carries. */
export function credentialClaims(account: string, grant: { id: string; chain: readonly string[] } | null): Record<string, unknown> {
  return {
    [SERVICE_ACCOUNT_CLAIM]: account,
    [GRANT_CLAIM]: grant?.id ?? null,
    [GRANT_CHAIN_CLAIM]: Object.freeze([...(grant?.chain ?? [])]),
  };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The service account the caller's credential was minted for, if any. */
export function serviceAccountOf(caller: Caller): string | null {
  return text(caller.claims[SERVICE_ACCOUNT_CLAIM]);
}

/** The delegation grant the caller's credential is parented to, if any (spec §5.4). */
export function grantOf(caller: Caller): string | null {
  return text(caller.claims[GRANT_CLAIM]);
}

/** That grant's ancestors back to the root; empty without a grant. */
export function grantChainOf(caller: Caller): readonly string[] {
  const chain = caller.claims[GRANT_CHAIN_CLAIM];
  return Array.isArray(chain) && chain.every((id) => typeof id === 'string') ? (chain as readonly string[]) : [];
}
