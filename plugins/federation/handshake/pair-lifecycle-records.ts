/**
 * The operator pair's life after the handshake (spec §3), each a
 * `pair.lifecycle.v1` LEARN record on `th_federation_pairs` with a `step`:
 * - `paused` / `resumed` (an operator): active or degraded ⇄ paused;
 * - `degraded` (this side's pulls fail: `error` {code, message, at}) and
 *   `recovered` (a pull succeeded again): active ⇄ degraded;
 * - `settings` (mode, poll interval);
 * - `peer_manifest_changed` (a refresh found a new verified manifest: the
 *   snapshot is replaced, the state is unchanged);
 * - `token_renewed` (side `issued`: this side minted a new token for the
 *   peer, the old one kept until the new one is used; side `held`: the peer
 *   minted a new one for this side) and `token_retired` (the old issued
 *   token revoked once the peer used the new one).
 * A step that does not apply to the pair's state is ignored, so the fold is
 * the same whatever order two servers of a shared log wrote them in.
 */
import { PAIR_MODES, type PairMode } from '../pair-records.js';
import { issuedOf, type FederationPair } from './federation-pair.js';

export const LIFECYCLE_KIND = 'pair.lifecycle.v1';
export type LifecycleStep = 'paused' | 'resumed' | 'degraded' | 'recovered' | 'settings' | 'peer_manifest_changed' | 'token_renewed' | 'token_retired';

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function applyLifecycleRecord(pair: FederationPair, body: Record<string, unknown>, at: string): void {
  if (pair.state === 'revoked') return;
  const live = pair.state !== 'establishing';
  switch (body['step'] as LifecycleStep) {
    case 'paused':
      if (live && pair.state !== 'paused') {
        pair.state = 'paused';
        pair.paused_at = at;
      }
      return;
    case 'resumed':
      if (pair.state === 'paused') {
        pair.state = 'active';
        pair.paused_at = null;
        pair.degraded_at = null;
      }
      return;
    case 'degraded': {
      if (pair.state !== 'active') return;
      const error = body['error'] as Record<string, unknown> | undefined;
      pair.state = 'degraded';
      pair.degraded_at = at;
      pair.last_error = { code: str(error?.['code']) ?? 'INTERNAL', message: str(error?.['message']) ?? '', at: str(error?.['at']) ?? at };
      return;
    }
    case 'recovered':
      if (pair.state === 'degraded') {
        pair.state = 'active';
        pair.degraded_at = null;
      }
      return;
    case 'settings':
      if ((PAIR_MODES as readonly unknown[]).includes(body['mode'])) pair.mode = body['mode'] as PairMode;
      if (typeof body['poll_interval_ms'] === 'number') pair.poll_interval_ms = body['poll_interval_ms'];
      return;
    case 'peer_manifest_changed':
      if (typeof body['manifest'] === 'object' && body['manifest'] !== null) {
        pair.peer_manifest = body['manifest'] as Record<string, unknown>;
        pair.peer_manifest_changed_at = at;
      }
      return;
    case 'token_renewed':
      if (!live) return;
      pair.token_renewed_at = at;
      if (body['side'] === 'issued') {
        const issued = issuedOf(body['issued']);
        if (!issued) return;
        pair.previous_issued = issuedOf(body['previous']);
        pair.issued = issued;
      } else if (body['side'] === 'held') pair.held_token_expires_at = str(body['held_token_expires_at']) ?? pair.held_token_expires_at;
      return;
    case 'token_retired':
      if (pair.previous_issued?.service_account_id === body['service_account_id']) pair.previous_issued = null;
      return;
  }
}
