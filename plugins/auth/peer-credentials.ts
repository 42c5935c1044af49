/**
 * Credentials another plugin issues to a machine peer (the federation
 * handshake, spec §5.1 rule 7): one service account per peer relationship,
 * one token under it with an expiry, both records on the auth thread like
 * every credential (only the token id, the SHA-256 of the secret, is kept).
 * Revoking the account kills every token under it in one record, so a pair
 * revocation needs no list of tokens to be complete.
 */
import { token } from '../../core/di/token.js';
import type { CredentialService } from './credential-service.js';

export interface PeerCredentialInput {
  /** Shown as the account's display name. */
  readonly label: string;
  /** The peer instance; recorded in the account's `by` field for audit, never an actor claim. */
  readonly peerDid: string;
  readonly scopes: readonly string[];
  readonly namespace: string;
  readonly ttlMs: number;
  readonly now: number;
}

export interface IssuedPeerCredential {
  readonly service_account_id: string;
  readonly token_id: string;
  /** The plaintext bearer: returned once, for the peer; never stored. */
  readonly bearer: string;
  readonly expires_at: string;
}

export interface PeerCredentials {
  issue(input: PeerCredentialInput): Promise<IssuedPeerCredential>;
  /** Revokes the account and with it every token issued under it; idempotent. */
  revoke(serviceAccountId: string, note: string): Promise<void>;
}

export const PeerCredentialsToken = token<PeerCredentials>('auth.PeerCredentials');

export function peerCredentials(credentials: CredentialService, envTag: string): PeerCredentials {
  return {
    issue: (input) =>
      credentials.transact(async (tx) => {
        // No actors: a peer reads and pulls, it never writes as anyone here.
        const account = await tx.createAccount({ displayName: input.label, scopes: input.scopes, actors: [], namespace: input.namespace, by: input.peerDid });
        const expiresAt = new Date(input.now + input.ttlMs).toISOString();
        const minted = await tx.mint({ serviceAccountId: account.id, envTag, tokenId: null, createdAt: new Date(input.now).toISOString(), expiresAt, by: input.peerDid, via: 'federation' });
        return { service_account_id: account.id, token_id: minted.entry.token_id, bearer: minted.bearer!, expires_at: expiresAt };
      }),
    revoke: async (serviceAccountId, note) => {
      if (!credentials.account(serviceAccountId)) return;
      await credentials.revokeAccount(serviceAccountId, null, note);
    },
  };
}
