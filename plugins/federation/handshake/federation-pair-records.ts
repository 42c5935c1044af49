/**
 * The steps of a federation pair (spec §2.8 operator view, §3), each a LEARN
 * record on `th_federation_pairs` written by this plugin:
 * - `pair.handshake.v1` step `requested` (either side: who, where, the nonce,
 *   the peer's verified manifest, the token this side issued if any),
 *   `approved` (responder: by whom, the token it issued), `active` (tokens
 *   exchanged, the sync pair pulling the peer exists);
 * - `pair.lifecycle.v1` (pair-lifecycle-records.ts): paused, resumed, degraded,
 *   recovered, settings, peer_manifest_changed, token_renewed, token_retired;
 * - `pair.revoke.v1` (spec §6): terminal, with the accounts whose tokens died.
 * The fold below is the pair table and the set of request nonces seen, so a
 * replayed request is refused after a restart too. Never a plaintext token.
 */
import type { Fold } from '../../../core/folds/fold.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { TH_FEDERATION_PAIRS } from '../../../core/records/reserved-threads.js';
import type { PairMode } from '../pair-records.js';
import { issuedOf, type FederationPair, type IssuedToken } from './federation-pair.js';
import { applyLifecycleRecord, LIFECYCLE_KIND } from './pair-lifecycle-records.js';

export const HANDSHAKE_KIND = 'pair.handshake.v1';
export const REVOKE_KIND = 'pair.revoke.v1';

export type { FederationPair, FederationPairState, IssuedToken, PairFailure, PairRole } from './federation-pair.js';

export interface FederationPairTable {
  readonly pairs: Map<string, FederationPair>;
  /** Nonces of every pair request either side recorded (a request nonce is never accepted twice). */
  readonly nonces: Set<string>;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function applyFederationPairRecord(table: FederationPairTable, record: LoomRecord): void {
  const body = record.body as Record<string, unknown>;
  const id = str(body['pair_id']);
  if (!id) return;
  const at = str(body['at']);
  const pair = table.pairs.get(id);
  if (body['kind'] === LIFECYCLE_KIND) {
    if (pair && at) applyLifecycleRecord(pair, body, at);
    return;
  }
  if (body['kind'] === REVOKE_KIND) {
    if (!pair || pair.state === 'revoked') return;
    pair.state = 'revoked';
    pair.revoked_at = at;
    pair.revoked_by = body['side'] === 'peer' ? 'peer' : 'local';
    pair.revoked_reason = str(body['reason']);
    return;
  }
  if (body['kind'] !== HANDSHAKE_KIND) return;
  switch (body['step']) {
    case 'requested': {
      const nonce = str(body['nonce']);
      if (nonce) table.nonces.add(nonce);
      const role = body['role'] === 'initiator' ? 'initiator' : body['role'] === 'responder' ? 'responder' : null;
      const peerDid = str(body['peer_did']);
      const peerUrl = str(body['peer_url']);
      const syncPairId = str(body['sync_pair_id']);
      if (pair || !role || !peerDid || !peerUrl || !nonce || !syncPairId || !at) return;
      table.pairs.set(id, {
        pair_id: id,
        role,
        peer_did: peerDid,
        peer_url: peerUrl,
        mode: (str(body['mode']) ?? 'continuous') as PairMode,
        poll_interval_ms: typeof body['poll_interval_ms'] === 'number' ? body['poll_interval_ms'] : null,
        nonce,
        sync_pair_id: syncPairId,
        peer_manifest: (typeof body['peer_manifest'] === 'object' && body['peer_manifest'] !== null ? body['peer_manifest'] : {}) as Record<string, unknown>,
        peer_manifest_changed_at: null,
        state: 'establishing',
        issued: issuedOf(body['issued']),
        previous_issued: null,
        paused_at: null,
        degraded_at: null,
        last_error: null,
        token_renewed_at: null,
        scopes: Array.isArray(body['scopes']) ? (body['scopes'] as string[]) : [],
        held_token_expires_at: null,
        requested_at: at,
        approved_at: null,
        approved_by: null,
        active_at: null,
        revoked_at: null,
        revoked_by: null,
        revoked_reason: null,
      });
      return;
    }
    case 'approved':
      if (!pair || pair.state !== 'establishing') return;
      pair.approved_at = at;
      pair.approved_by = str(body['by']);
      pair.issued = issuedOf(body['issued']) ?? pair.issued;
      if (Array.isArray(body['scopes'])) pair.scopes = body['scopes'] as string[];
      return;
    case 'active':
      if (!pair || pair.state !== 'establishing') return;
      pair.state = 'active';
      pair.active_at = at;
      pair.held_token_expires_at = str(body['held_token_expires_at']);
      return;
  }
}

export const federationPairsFold: Fold<FederationPairTable, unknown[]> = {
  name: 'federation_handshake_pairs',
  scope: 'global',
  description: 'Federation pairs made by the handshake (th_federation_pairs): role, peer, state establishing/active/paused/degraded/revoked, mode, issued token ids, the peer manifest snapshot; never a token.',
  threads: [TH_FEDERATION_PAIRS],
  initial: () => ({ pairs: new Map(), nonces: new Set() }),
  apply(state, input) {
    applyFederationPairRecord(state, input.record);
    return state;
  },
  value: (state) => [...state.pairs.values()].map((pair) => federationPairView(pair)),
};

/** What the pair's sync pair reports live (its runner): null before the pair is active, or after it is revoked. */
export interface PairLiveStatus {
  readonly retries: number;
  readonly last_error: { readonly code: string; readonly message: string; readonly at: string } | null;
  readonly next_attempt_at: string | null;
  readonly last_sync_at: string | null;
  readonly cursor: string | null;
  readonly poll_interval_ms: number;
}

const tokenView = (t: IssuedToken | null) => (t ? { service_account_id: t.service_account_id, token_id_prefix: t.token_id.slice(0, 12), expires_at: t.expires_at } : null);

/** The operator view (GET /v1/federation/pairs): token ids shortened, never a bearer. */
export function federationPairView(pair: FederationPair, live: PairLiveStatus | null = null) {
  return {
    object: 'federation_pair' as const,
    pair_id: pair.pair_id,
    role: pair.role,
    peer_did: pair.peer_did,
    peer_url: pair.peer_url,
    state: pair.state,
    mode: pair.mode,
    sync_pair_id: pair.sync_pair_id,
    scopes: [...pair.scopes],
    poll_interval_ms: live?.poll_interval_ms ?? pair.poll_interval_ms,
    issued_token: tokenView(pair.issued),
    previous_issued_token: tokenView(pair.previous_issued),
    held_token_expires_at: pair.held_token_expires_at,
    token_renewed_at: pair.token_renewed_at,
    // The live error while pulls fail; the recorded one that made the pair degraded otherwise.
    last_error: live?.last_error && live.retries > 0 ? live.last_error : pair.last_error,
    retries: live?.retries ?? 0,
    next_retry_at: live && live.retries > 0 ? live.next_attempt_at : null,
    last_sync_at: live?.last_sync_at ?? null,
    last_sync_cursor: live?.cursor ?? null,
    paused_at: pair.paused_at,
    degraded_at: pair.degraded_at,
    peer_manifest: pair.peer_manifest,
    peer_manifest_changed_at: pair.peer_manifest_changed_at,
    requested_at: pair.requested_at,
    approved_at: pair.approved_at,
    approved_by: pair.approved_by,
    active_at: pair.active_at,
    revoked_at: pair.revoked_at,
    revoked_by: pair.revoked_by,
    revoked_reason: pair.revoked_reason,
  };
}

export type FederationPairView = ReturnType<typeof federationPairView>;
