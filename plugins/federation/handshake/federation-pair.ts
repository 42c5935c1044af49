/** A federation pair as the fold keeps it (spec §2.8 operator view), and how a recorded token reads. */
import type { PairMode } from '../pair-records.js';

export type FederationPairState = 'establishing' | 'active' | 'paused' | 'degraded' | 'revoked';

/** Why a pair is degraded: the pull error's code (pair-error.ts, or TOKEN_EXPIRED / PEER_REFUSED_TOKEN) and message. */
export interface PairFailure {
  readonly code: string;
  readonly message: string;
  readonly at: string;
}
export type PairRole = 'initiator' | 'responder';

export interface IssuedToken {
  readonly service_account_id: string;
  readonly token_id: string;
  readonly expires_at: string;
}

export interface FederationPair {
  readonly pair_id: string;
  readonly role: PairRole;
  readonly peer_did: string;
  readonly peer_url: string;
  mode: PairMode;
  /** The poll interval of `polling` (and the backoff cap); null: the instance's default. */
  poll_interval_ms: number | null;
  readonly nonce: string;
  readonly sync_pair_id: string;
  peer_manifest: Record<string, unknown>;
  peer_manifest_changed_at: string | null;
  state: FederationPairState;
  /** The token this side minted for the peer (hash id and account only). */
  issued: IssuedToken | null;
  /** The token it replaced at a renewal, alive until the peer first uses the new one. */
  previous_issued: IssuedToken | null;
  paused_at: string | null;
  degraded_at: string | null;
  /** Why it is degraded (kept after recovery as the last failure). */
  last_error: PairFailure | null;
  token_renewed_at: string | null;
  scopes: readonly string[];
  /** When the token the peer minted for this side expires. */
  held_token_expires_at: string | null;
  readonly requested_at: string;
  approved_at: string | null;
  approved_by: string | null;
  active_at: string | null;
  revoked_at: string | null;
  revoked_by: 'local' | 'peer' | null;
  revoked_reason: string | null;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function issuedOf(value: unknown): IssuedToken | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const sa = str(v['service_account_id']);
  const id = str(v['token_id']);
  const exp = str(v['expires_at']);
  return sa && id && exp ? { service_account_id: sa, token_id: id, expires_at: exp } : null;
}

